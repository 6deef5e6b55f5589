// Proxy sessions for the API: create (with the pool), list, fetch, end, and their interactions; and the sessions a
// released number fails. What is relayed within a session is the relays' (they write proxy_interactions).
import type { components } from '../../generated/openapi.js';
import type { Store, Tx } from '../store/db.js';
import type { ProxySessionRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import type { NumberService } from '../numbers/service.js';
import type { ResponseRecorder } from '../idempotency/recorder.js';
import type { Page, PageRequest } from '../store/pagination.js';
import type { JobHandling } from '../jobs/job.js';
import { errors } from '../errors.js';
import { newSid } from '../ids.js';
import { assertUrlsAllowed, type PrivateAddressPolicy } from '../webhooks/url-policy.js';
import { interactionView, sessionView, type ProxyInteractionRecord, type ProxySessionRecord } from './view.js';
import { participantsOf } from './store.js';
import * as sessions from './session-store.js';
import { assignProxyNumbers, poolOf } from './pool.js';
import { SessionExpiry, scheduleExpiry } from './expiry.js';
import { sessionEnded } from './close.js';

type CreateProxySessionInput = components['schemas']['CreateProxySessionRequest'];

const DEFAULT_TTL = 3600;
const DEFAULT_MODE = 'voice-and-message';

export class ProxySessionService {
  private readonly expiry: SessionExpiry;

  constructor(
    private readonly store: Store,
    private readonly webhooks: WebhookService,
    numbers: NumberService,
    /** MAX_OPEN_PROXY_SESSIONS: the most sessions one account has open (not ended) at once. */
    private readonly maxOpen: number,
    /** Which non-public addresses given URLs may point at (WEBHOOK_ALLOW_PRIVATE). */
    private readonly privateAddresses: PrivateAddressPolicy,
  ) {
    this.expiry = new SessionExpiry(store, webhooks);
    // A released number can no longer relay: the sessions it serves fail, in the release's transaction.
    numbers.onReleased((tx, released) => this.numberReleased(tx, released));
  }

  async create(
    accountSid: string,
    input: CreateProxySessionInput,
    { recorder }: { recorder?: ResponseRecorder } = {},
  ): Promise<ProxySessionRecord> {
    const [first, second] = input.participants;
    if (input.participants.length !== 2 || !first || !second)
      throw errors.invalidField('participants', 'must hold exactly two participants');
    if (first.identifier === second.identifier)
      throw errors.invalidField('participants', 'must have two different identifiers');
    assertUrlsAllowed(this.privateAddresses, { callback_url: input.callback_url });
    return this.store.transaction(async (tx) => {
      const now = tx.clock.now();
      const created = new Date(now).toISOString();
      const ttl = input.ttl ?? DEFAULT_TTL;
      const row: ProxySessionRow = {
        sid: newSid('proxySession', now),
        account_sid: accountSid,
        unique_name: input.unique_name ?? null,
        status: 'open',
        mode: input.mode ?? DEFAULT_MODE,
        ttl,
        callback_url: input.callback_url ?? null,
        date_expiry: new Date(now + ttl * 1000).toISOString(),
        closed_reason: null,
        date_created: created,
        date_updated: created,
        date_ended: null,
      };
      // Counted by the insert's trigger, which on PostgreSQL holds the account's count row until this transaction
      // ends: concurrent creations of one account take turns, and the quota is exact. A release of a number takes
      // that row too (see numberReleased): the pool (its version first) is read after it, so it never holds a number
      // released meanwhile.
      if (!(await sessions.insertSession(tx.db, row))) throw errors.uniqueNameInUse(row.unique_name!);
      const pool = await poolOf(tx.db, accountSid);
      input.participants.forEach((p, i) => {
        if (pool.numbers.has(p.identifier))
          throw errors.invalidField(`participants[${i}].identifier`, 'is a number of your account, not a participant');
      });
      if ((await sessions.countOpenSessions(tx.db, accountSid)) > this.maxOpen)
        throw errors.proxySessionQuotaExceeded(this.maxOpen);
      const participants = await assignProxyNumbers(tx, row, input.participants, pool);
      await scheduleExpiry(tx, row);
      const view = sessionView(row, participants);
      await recorder?.record(tx, view);
      return view;
    });
  }

  async get(accountSid: string, sid: string): Promise<ProxySessionRecord> {
    const row = await this.owned(accountSid, sid);
    return sessionView(row, await participantsOf(this.store.db, sid));
  }

  async list(
    accountSid: string,
    status: ProxySessionRow['status'] | undefined,
    page: PageRequest,
  ): Promise<Page<ProxySessionRecord>> {
    const result = await sessions.listSessions(this.store.db, accountSid, status, page);
    const participants = await sessions.participantsBySession(
      this.store.db,
      result.data.map((r) => r.sid),
    );
    return {
      data: result.data.map((row) => sessionView(row, participants.get(row.sid) ?? [])),
      next_page_token: result.next_page_token,
    };
  }

  /** Ends the session (`closed`, `ended`); one that has already ended stays as it is. */
  async end(accountSid: string, sid: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      await sessions.lockOpenCount(tx, this.store.dialect, accountSid);
      if (!(await sessions.ownedSession(tx.db, accountSid, sid))) throw errors.noSuchProxySession(sid);
      const at = new Date(tx.clock.now()).toISOString();
      const ended = await sessions.endSession(tx.db, sid, { status: 'closed', closed_reason: 'ended', at });
      if (ended) await sessionEnded(this.webhooks, tx, ended);
    });
  }

  async interactions(accountSid: string, sid: string, page: PageRequest): Promise<Page<ProxyInteractionRecord>> {
    await this.owned(accountSid, sid);
    const result = await sessions.listInteractions(this.store.db, sid, page);
    return { data: result.data.map(interactionView), next_page_token: result.next_page_token };
  }

  jobHandlers(): JobHandling[] {
    return this.expiry.jobHandlers();
  }

  /** The open sessions the released number serves fail (`number_released`), in the release's transaction. */
  private async numberReleased(tx: Tx, released: { account_sid: string; phone_number: string }): Promise<void> {
    // After the count row: a creation holding it commits first, and its session is then seen and failed here.
    await sessions.lockOpenCount(tx, this.store.dialect, released.account_sid);
    const phoneNumber = released.phone_number;
    const at = new Date(tx.clock.now()).toISOString();
    for (const sid of await sessions.openSessionsUsing(tx.db, phoneNumber)) {
      const failed = await sessions.endSession(tx.db, sid, { status: 'failed', closed_reason: 'number_released', at });
      if (failed) await sessionEnded(this.webhooks, tx, failed);
    }
  }

  private async owned(accountSid: string, sid: string): Promise<ProxySessionRow> {
    const row = await sessions.ownedSession(this.store.db, accountSid, sid);
    if (!row) throw errors.noSuchProxySession(sid);
    return row;
  }
}
