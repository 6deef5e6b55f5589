// Calls: the rules of making, reading and changing calls for the API, and the sandbox's inbound calls and input.
// What happens on a call (dialing, instructions, recordings, events) is the engine's (see engine/port.ts).
import type { Carrier } from '../carrier/carrier.js';
import type { Store, Tx } from '../store/db.js';
import type { CallRow } from '../store/schema.js';
import type { PageRequest } from '../store/pagination.js';
import type { ResponseRecorder } from '../idempotency/recorder.js';
import type { CallEngine } from './engine/port.js';
import { errors } from '../errors.js';
import { newSid } from '../ids.js';
import { incomingNumber } from '../numbers/store.js';
import { assertUrlsAllowed, checkUrl, type PrivateAddressPolicy } from '../webhooks/url-policy.js';
import type { PublicUrl } from '../http/public-url.js';
import { createdRange } from '../http/instant.js';
import { parseInlineTwiml } from './twiml/parse-cache.js';
import { urlsOf } from './twiml/verbs.js';
import { FINAL_CALL_STATUSES, callView, recordingView, type CallRecord } from './view.js';
import { checkUpdate, exactlyOne, newCallRow } from './requests.js';
import type { CallInputBody, MakeCallInput, UpdateCallInput } from './requests.js';
import * as calls from './store/calls.js';
import * as recordings from './store/recordings.js';

/**
 * Inline instructions are checked whole before they are stored: a 400 names what is wrong with them, and each URL
 * they would call is under the URL policy as the request's own URLs are (`url_not_allowed`, naming the verb).
 */
function checkTwiml(twiml: string | undefined, policy: PrivateAddressPolicy): void {
  if (twiml === undefined) return;
  const parsed = parseInlineTwiml(twiml);
  if (!parsed.ok) throw errors.invalidField('twiml', parsed.error);
  for (const { what, url } of urlsOf(parsed.instructions)) {
    const reason = checkUrl(url, policy);
    if (reason) throw errors.urlNotAllowed('twiml', `${what} ${reason}`);
  }
}

export class CallService {
  constructor(
    private readonly store: Store,
    private readonly carrier: Carrier,
    private readonly engine: CallEngine,
    /** Which non-public addresses given URLs may point at (WEBHOOK_ALLOW_PRIVATE). */
    private readonly privateAddresses: PrivateAddressPolicy,
    /** The base of the absolute links the API returns. */
    private readonly publicUrl: PublicUrl,
  ) {}

  async make(accountSid: string, body: MakeCallInput, { recorder }: { recorder?: ResponseRecorder } = {}) {
    if (!this.carrier.channels.has('voice')) throw errors.channelUnavailable('A call', this.carrier.name);
    exactlyOne(body, 'url', 'twiml');
    if (body.method !== undefined && body.url === undefined)
      throw errors.invalidField('method', 'is only given with url');
    checkTwiml(body.twiml, this.privateAddresses);
    const { url, status_callback, recording_status_callback } = body;
    assertUrlsAllowed(this.privateAddresses, { url, status_callback, recording_status_callback });
    return this.store.transaction(async (tx) => {
      const number = await incomingNumber(tx.db, body.from);
      if (number?.account_sid !== accountSid) throw errors.fromNumberNotOwned(body.from);
      const now = tx.clock.now();
      const row = newCallRow(accountSid, newSid('call', now), new Date(now).toISOString(), body);
      await calls.insertCall(tx.db, row);
      await this.engine.place(tx, row);
      const view = callView(row);
      await recorder?.record(tx, view);
      return view;
    });
  }

  async get(accountSid: string, sid: string): Promise<CallRecord> {
    return callView(await this.found(accountSid, sid));
  }

  async list(accountSid: string, filters: calls.CallFilters, page: PageRequest) {
    const normalized = createdRange(filters);
    const result = await calls.listCalls(this.store.db, accountSid, normalized, page);
    return { data: result.data.map(callView), next_page_token: result.next_page_token };
  }

  /** Ends a live call, or gives it new instructions (see the spec's updateCall). */
  async update(accountSid: string, sid: string, body: UpdateCallInput): Promise<CallRecord> {
    checkUpdate(body);
    checkTwiml(body.twiml, this.privateAddresses);
    assertUrlsAllowed(this.privateAddresses, { url: body.url });
    // Ending a leg ends its peer, its dial legs and feeds its parent: a change of the leg at the other end, at once,
    // locks the same rows the other way round.
    return this.store.transactionAgainOnDeadlock(async (tx) => {
      const call = await this.foundToChange(accountSid, sid, tx);
      if (FINAL_CALL_STATUSES.includes(call.status))
        throw errors.callNotModifiable(sid, call.status, ', which has ended');
      let changed: CallRow;
      if (body.status) changed = await this.engine.end(tx, call, body.status);
      else if (body.url)
        changed = await this.engine.redirect(tx, call, { url: body.url, method: body.method ?? 'POST' });
      else changed = await this.engine.redirect(tx, call, { twiml: body.twiml! });
      return callView(changed);
    });
  }

  async recordings(accountSid: string, callSid: string, page: PageRequest) {
    await this.found(accountSid, callSid);
    const result = await recordings.listRecordings(this.store.db, accountSid, callSid, page);
    return {
      data: result.data.map((row) => recordingView(row, this.publicUrl.value)),
      next_page_token: result.next_page_token,
    };
  }

  /** The WAV file of a completed recording of the account. */
  async media(accountSid: string, sid: string): Promise<Buffer> {
    const recording = await recordings.findRecordingAudio(this.store.db, accountSid, sid);
    if (!recording) throw errors.noSuchRecording(sid);
    if (recording.status !== 'completed' || !recording.audio) throw errors.recordingNotReady(sid, recording.status);
    return Buffer.from(recording.audio);
  }

  /** Sandbox: a call from an outside number to a number of the account, handled like real inbound traffic. */
  async injectInbound(
    accountSid: string,
    input: { from: string; to: string },
    { recorder }: { recorder?: ResponseRecorder } = {},
  ): Promise<CallRecord> {
    if (!this.carrier.isSandbox) throw errors.sandboxInactive();
    return this.store.transaction(async (tx) => {
      const number = await incomingNumber(tx.db, input.to);
      if (number?.account_sid !== accountSid) throw errors.toNumberNotOwned(input.to);
      // A caller on this platform places its call with POST /v1/calls (as its holder), never posing as outside.
      if (await incomingNumber(tx.db, input.from))
        throw errors.invalidField('from', 'is a number held on this platform, not an outside number');
      const view = callView(await this.engine.receive(tx, input.from, input.to));
      await recorder?.record(tx, view);
      return view;
    });
  }

  /** Sandbox: the other end of a live call presses digits or speaks. */
  async input(accountSid: string, sid: string, body: CallInputBody): Promise<CallRecord> {
    if (!this.carrier.isSandbox) throw errors.sandboxInactive();
    exactlyOne(body, 'digits', 'speech');
    const input = body.digits !== undefined ? { digits: body.digits } : { speech: body.speech! };
    return this.store.transactionAgainOnDeadlock(async (tx) => {
      const call = await this.foundToChange(accountSid, sid, tx);
      return callView(await this.engine.input(tx, call, input));
    });
  }

  private async found(accountSid: string, sid: string): Promise<CallRow> {
    const row = await calls.findCall(this.store.db, accountSid, sid);
    if (!row) throw errors.noSuchCall(sid);
    return row;
  }

  /** `found` for a change in `tx`: locked until it commits (see findCallToChange). */
  private async foundToChange(accountSid: string, sid: string, tx: Tx): Promise<CallRow> {
    const row = await calls.findCallToChange(tx, this.store.dialect, accountSid, sid);
    if (!row) throw errors.noSuchCall(sid);
    return row;
  }
}
