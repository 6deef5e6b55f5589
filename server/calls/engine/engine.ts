// The call engine: what the calls API asks of a call (place it, receive one, end, redirect, input), and the sink of
// the network's reports about its legs (ringing, answered, busy ...). Every change runs in the caller's transaction.
import type { Config } from '../../config.js';
import type { Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';
import type { VoiceCarrier, VoiceReport, VoiceReports } from '../../carrier/voice.js';
import type { WebhookService } from '../../webhooks/service.js';
import type { JobHandling } from '../../jobs/job.js';
import type { HttpMethod, Instructions } from '../twiml/verbs.js';
import type { CallEngine, CallInput } from './port.js';
import { parseInlineTwiml } from '../twiml/parse-cache.js';
import { errors } from '../../errors.js';
import { nowIso } from '../../clock.js';
import { LIVE_STATUSES, callBySid, changeCall, insertCall, isLive, voiceNumber } from './store.js';
import { callEvent } from './events.js';
import { inboundLeg } from './legs.js';
import { CallDriver, RELEASED_BEFORE_RINGING } from './driver.js';
import { incomingNumber } from '../../numbers/store.js';
import { EffectWork } from './work.js';
import { CallJobs } from './handlers.js';
import type { PublicUrl } from '../../http/public-url.js';
import { LegSeal } from './leg-seal.js';
import { VerificationCalls, type VerificationCallReports } from './verification-calls.js';
import type { LegHooks } from './leg-hooks.js';
import type { Logger } from 'pino';

/**
 * The most inbound legs a chain of dials between numbers held here reaches: a number whose instructions dial it (or a
 * number that dials back) would otherwise ring leg after leg, each billed and fetching instructions, for as long as
 * the first call lasts. The dial leg that would ring one more ends `failed` with `dial_loop`.
 */
export const MAX_CHAINED_INBOUND_LEGS = 10;

type EngineConfig = Pick<Config, 'callFetchTimeoutMs' | 'recordingMaxBytes' | 'webhookAllowPrivate'>;

export class CallRunner implements CallEngine, VoiceReports {
  private readonly work: EffectWork;
  private readonly driver: CallDriver;
  private readonly jobs: CallJobs;
  /** Places the calls that speak verification codes (see verification-calls.ts). */
  readonly verificationCalls: VerificationCalls;

  constructor(
    private readonly voice: VoiceCarrier,
    private readonly webhooks: WebhookService,
    config: EngineConfig,
    /** The base of RecordingUrl and media_url. */
    publicUrl: PublicUrl,
    /** Seals what verification legs store. */
    serverSecret: string,
    verificationReports: VerificationCallReports,
    /** Route inbound legs and hear of Dials and ends (the proxy's call relay). */
    private readonly hooks: LegHooks,
    /** Where the detail of a failed fetch goes (the account reads only its kind). */
    logger: Logger,
  ) {
    const seal = new LegSeal(serverSecret);
    this.work = new EffectWork(voice, webhooks, seal, hooks);
    this.verificationCalls = new VerificationCalls(this.work, seal, verificationReports);
    const ended = (tx: Tx, leg: CallRow) => this.verificationCalls.ended(tx, leg);
    this.driver = new CallDriver(this.work, voice, webhooks, publicUrl, seal, ended, hooks);
    this.jobs = new CallJobs(this.driver, voice, webhooks, config, publicUrl, seal, logger);
  }

  place(tx: Tx, call: CallRow): Promise<void> {
    return this.work.place(tx, call);
  }

  close(): Promise<void> {
    return this.jobs.close();
  }

  async receive(tx: Tx, from: string, to: string): Promise<CallRow> {
    const number = await voiceNumber(tx.db, to);
    // Released since the caller found it held (PostgreSQL reads each statement anew): as if it had come after.
    if (!number) throw errors.toNumberNotOwned(to);
    const leg = await this.hooks.inbound(tx, inboundLeg(number, from, to, tx.clock.now(), null));
    await insertCall(tx.db, leg);
    await callEvent(this.webhooks, tx, leg, 'ringing');
    await this.voice.ringInbound(tx, leg.sid);
    return leg;
  }

  async end(tx: Tx, call: CallRow, status: 'canceled' | 'completed'): Promise<CallRow> {
    const row = await this.live(tx, call);
    if (status === 'canceled' && row.status === 'in-progress')
      throw errors.callNotModifiable(row.sid, row.status, ': hang it up with status completed');
    if (status === 'canceled') await this.driver.finish(tx, row, 'canceled');
    else await this.driver.hangup(tx, row);
    return this.reload(tx, row);
  }

  async redirect(
    tx: Tx,
    call: CallRow,
    change: { url: string; method: HttpMethod } | { twiml: string },
  ): Promise<CallRow> {
    const row = await this.live(tx, call);
    // The dialed side of a <Dial> runs no instructions of its own (the person or number it reached is the other end).
    if (row.direction === 'outbound-dial') {
      const why =
        `, the dialed side of a <Dial> of ${row.parent_call_sid}, which runs no instructions: ` +
        'end it with status, or change that call';
      throw errors.callNotModifiable(row.sid, row.status, why);
    }
    let instructions: Instructions | null = null;
    if ('twiml' in change) {
      const parsed = parseInlineTwiml(change.twiml);
      if (!parsed.ok) throw errors.invalidField('twiml', parsed.error);
      instructions = parsed.instructions;
    }
    const url = 'url' in change ? change.url : null;
    const method = 'url' in change ? change.method : 'POST';
    const changed = await changeCall(tx.db, row.sid, LIVE_STATUSES, {
      url,
      method: url ? method : null,
      twiml: 'twiml' in change ? change.twiml : null,
      date_updated: nowIso(tx.clock),
    });
    // Not answered yet: the answer runs the new instructions.
    if (changed?.status === 'in-progress')
      await this.driver.feed(tx, changed, { type: 'redirect', instructions, url, method });
    return this.reload(tx, row);
  }

  async input(tx: Tx, call: CallRow, input: CallInput): Promise<CallRow> {
    const row = await this.live(tx, call);
    if (row.status !== 'in-progress') throw errors.callNotModifiable(row.sid, row.status, ', not in-progress');
    const sound =
      'digits' in input
        ? { kind: 'dtmf' as const, digits: input.digits }
        : { kind: 'speech' as const, text: input.speech };
    // Injected speech is heard with the confidence the spec gives it (CallInputRequest).
    const confidence = 'speech' in input ? 0.9 : undefined;
    await this.driver.feed(tx, row, { type: 'heard', sound, confidence });
    return this.reload(tx, row);
  }

  /** The network's report on a leg; a report about a leg that has moved past it changes nothing. */
  async callStatus(tx: Tx, report: VoiceReport): Promise<void> {
    const row = await callBySid(tx.db, report.sid);
    if (!row || !isLive(row)) return;
    switch (report.status) {
      case 'ringing':
        return this.ringing(tx, row);
      case 'answered':
        return this.answered(tx, row, report);
      case 'failed':
        return this.driver.finish(tx, row, 'failed', report);
      default:
        if (row.status !== 'in-progress') await this.driver.finish(tx, row, report.status);
    }
  }

  jobHandlers(): JobHandling[] {
    return [...this.jobs.handlers(), ...this.voice.voiceJobHandlers(this)];
  }

  /** A leg ringing at a number held on this platform rings its holder too: an inbound leg, linked as its peer. */
  private async ringing(tx: Tx, row: CallRow): Promise<void> {
    // The number it is from may have been released since it was placed (and be another account's now): it rings
    // from no number its account does not hold. Checked where the network first has it, as a message's dispatch is.
    const outbound = row.direction !== 'inbound' && row.purpose === 'api';
    if (
      outbound &&
      row.status === 'queued' &&
      (await incomingNumber(tx.db, row.from_number))?.account_sid !== row.account_sid
    )
      return this.driver.finish(tx, row, 'failed', RELEASED_BEFORE_RINGING);
    // A verification leg reaches the handset itself, never an account's app on a number held here.
    const toHolder = outbound;
    const number = toHolder ? await voiceNumber(tx.db, row.to_number) : undefined;
    if (number && row.direction === 'outbound-dial') {
      const chain = await this.chainAbove(tx, row);
      if (chain.inboundLegs >= MAX_CHAINED_INBOUND_LEGS) return this.endLoop(tx, row, chain.start);
    }
    const inbound = number && inboundLeg(number, row.from_number, row.to_number, tx.clock.now(), row.sid);
    const change = { status: 'ringing' as const, peer_sid: inbound ? inbound.sid : row.peer_sid };
    const rung = await changeCall(tx.db, row.sid, ['queued'], { ...change, date_updated: nowIso(tx.clock) });
    if (!rung) return;
    await callEvent(this.webhooks, tx, rung, 'ringing');
    if (!inbound) return;
    const leg = await this.hooks.inbound(tx, inbound);
    await insertCall(tx.db, leg);
    await callEvent(this.webhooks, tx, leg, 'ringing');
  }

  /**
   * The chain of calls between numbers held here that leads to a dial leg: how many inbound legs it holds (the dial
   * leg's parent when inbound, then the parent of the dial leg that rang that one, and so on), and the leg it started
   * from (an API call, or an inbound call from outside). A leg at a time: only a dial to a number held here asks, and
   * a chain is never longer than the bound (its walk stops at four times that all the same).
   */
  private async chainAbove(tx: Tx, dial: CallRow): Promise<{ inboundLegs: number; start: CallRow | undefined }> {
    let inboundLegs = 0;
    let leg = dial;
    while (inboundLegs < 4 * MAX_CHAINED_INBOUND_LEGS) {
      const parent = leg.parent_call_sid ? await callBySid(tx.db, leg.parent_call_sid) : undefined;
      if (parent?.direction !== 'inbound') return { inboundLegs, start: parent };
      inboundLegs += 1;
      const caller = parent.peer_sid ? await callBySid(tx.db, parent.peer_sid) : undefined;
      if (caller?.direction !== 'outbound-dial') return { inboundLegs, start: caller ?? parent };
      leg = caller;
    }
    return { inboundLegs, start: undefined };
  }

  /**
   * A dial that would ring one inbound leg too many: it fails with `dial_loop`, and the call the chain started from
   * is hung up, which ends every leg of the chain (each leg's end ends its peer and its dial). Failing the dial alone
   * would not end the loop: its parent goes on with its instructions, which may dial again (after a `<Redirect>`).
   */
  private async endLoop(tx: Tx, dial: CallRow, start: CallRow | undefined): Promise<void> {
    await this.driver.finish(tx, dial, 'failed', {
      errorCode: 'dial_loop',
      errorMessage:
        `This call was dialed through ${MAX_CHAINED_INBOUND_LEGS} calls to numbers of this platform in a ` +
        "chain; a number's instructions probably dial back into it.",
    });
    if (start && isLive(start)) await this.driver.hangup(tx, start);
  }

  /** Answered: a leg with a ringing peer on this platform is answered with it, at once (answered_by null). */
  private async answered(tx: Tx, row: CallRow, report: Extract<VoiceReport, { status: 'answered' }>) {
    if (row.status === 'in-progress') return;
    const peer = row.peer_sid ? await callBySid(tx.db, row.peer_sid) : undefined;
    if (peer && isLive(peer) && peer.status !== 'in-progress') {
      const at = nowIso(tx.clock);
      const mine = await this.driver.markAnswered(tx, row, null, { kind: 'peer', callSid: peer.sid }, at);
      const theirs = await this.driver.markAnswered(tx, peer, null, { kind: 'peer', callSid: row.sid }, at);
      if (mine) await this.driver.begin(tx, mine);
      if (theirs) await this.driver.begin(tx, theirs);
      return;
    }
    const answered = await this.driver.markAnswered(tx, row, report.answeredBy, report.party);
    if (answered) await this.driver.begin(tx, answered);
  }

  private async live(tx: Tx, call: CallRow): Promise<CallRow> {
    const row = (await callBySid(tx.db, call.sid)) ?? call;
    if (!isLive(row)) throw errors.callNotModifiable(row.sid, row.status, ', which has ended');
    return row;
  }

  private async reload(tx: Tx, row: CallRow): Promise<CallRow> {
    return (await callBySid(tx.db, row.sid)) ?? row;
  }
}
