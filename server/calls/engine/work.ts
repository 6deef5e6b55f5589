// What the machine's effects and a leg's course become: durable jobs (the leg's next run, a fetch, a recording's
// rendering), child legs placed on the network, recordings stored. Each is written in the caller's transaction.
import type { Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';
import type { VoiceCarrier } from '../../carrier/voice.js';
import type { WebhookService } from '../../webhooks/service.js';
import type { MachineEffect } from '../machine/types.js';
import { enqueueJob } from '../../jobs/queue.js';
import { nowIso } from '../../clock.js';
import { CALL_FETCH_JOB, CALL_RUN_JOB, RECORDING_JOB } from './job-types.js';
import { callEvent } from './events.js';
import { insertCall, insertRecording } from './store.js';
import { ownNumber } from './legs.js';
import { newLeg } from '../rows.js';
import { incomingNumber } from '../../numbers/store.js';
import { momentOf } from './timing.js';
import type { LegSeal } from './leg-seal.js';
import type { LegHooks } from './leg-hooks.js';

type Effect<T extends MachineEffect['type']> = Extract<MachineEffect, { type: T }>;

/** An outside person on a `<Dial>` talks this long (call time), then hangs up. */
const DIALED_PARTY_TALKS_MS = 5000;

/** The parameters every instructions request carries (Twilio's names). */
function callParams(row: CallRow): Record<string, string> {
  return {
    CallSid: row.sid,
    AccountSid: row.account_sid,
    From: row.from_number,
    To: row.to_number,
    CallStatus: row.status,
    Direction: row.direction,
    ApiVersion: '2010-04-01',
  };
}

/**
 * The number a Dial's child leg shows: its callerId only when the account holds it (as Twilio requires an owned or
 * verified caller ID, against spoofing), else the leg's own number while the account still holds that; null when it
 * holds neither (the leg's number was released during the call, and may be another account's now).
 */
async function callerIdOf(tx: Tx, row: CallRow, callerId: string | null): Promise<string | null> {
  const held = async (number: string) => (await incomingNumber(tx.db, number))?.account_sid === row.account_sid;
  if (callerId !== null && (await held(callerId))) return callerId;
  return (await held(ownNumber(row))) ? ownNumber(row) : null;
}

export class EffectWork {
  constructor(
    private readonly voice: VoiceCarrier,
    private readonly webhooks: WebhookService,
    private readonly seal: LegSeal,
    private readonly hooks: LegHooks,
  ) {}

  /** A leg starts on the network: its `call.initiated`, then the carrier dials it. */
  async place(tx: Tx, row: CallRow): Promise<void> {
    await callEvent(this.webhooks, tx, row, 'initiated');
    await this.voice.placeCall(tx, { sid: row.sid, from: row.from_number, to: row.to_number, timeoutS: row.timeout });
  }

  /**
   * The answered leg's next run (at its step): at the machine's wake-up or the time limit, whichever comes first.
   * A leg without a machine (a Dial's) ends when the outside person hangs up, or its peer's leg does.
   */
  async scheduleRun(tx: Tx, row: CallRow, wakeAtMs: number | null): Promise<void> {
    const limitMs = row.time_limit * 1000;
    let atMs = wakeAtMs === null ? limitMs : Math.min(wakeAtMs, limitMs);
    if (!row.machine && !row.peer_sid) atMs = Math.min(atMs, DIALED_PARTY_TALKS_MS);
    const payload = { sid: row.sid, step: row.step };
    await enqueueJob(tx, CALL_RUN_JOB, payload, { runAt: momentOf(row, atMs, this.voice.speed) });
  }

  async fetch(tx: Tx, row: CallRow, effect: Effect<'fetch'>): Promise<void> {
    const params = { ...callParams(row), ...effect.params };
    await enqueueJob(tx, CALL_FETCH_JOB, {
      sid: row.sid,
      step: row.step,
      requestId: effect.id,
      url: effect.url,
      method: effect.method,
      params,
    });
  }

  /**
   * The child leg of a Dial, placed like any call; its end comes back to the parent as `dialEnded`. Not placed when
   * the account holds no number it could show (`callerIdOf`): the caller ends it `failed` at once, and has it then.
   */
  async dial(tx: Tx, row: CallRow, effect: Effect<'dial'>): Promise<CallRow | null> {
    const callerId = await callerIdOf(tx, row, effect.callerId);
    const child = newLeg(
      {
        sid: effect.id,
        account_sid: row.account_sid,
        parent_call_sid: row.sid,
        from_number: callerId ?? ownNumber(row),
        to_number: effect.number,
        direction: 'outbound-dial',
        status: 'queued',
        timeout: effect.timeoutS,
        time_limit: effect.timeLimitS,
        purpose: row.purpose,
      },
      tx.clock.now(),
    );
    await insertCall(tx.db, child);
    await this.hooks.dialed(tx, row, child);
    if (callerId === null) return child;
    await this.place(tx, child);
    return null;
  }

  /** A finished recording is stored `processing`, and its audio rendered by a job. */
  async recorded(tx: Tx, row: CallRow, effect: Effect<'recorded'>): Promise<void> {
    const { recording: spec } = effect;
    const now = nowIso(tx.clock);
    const segments = effect.segments.filter((s) => s.atMs < spec.endMs && s.atMs + s.ms > spec.startMs);
    await insertRecording(tx.db, {
      sid: spec.sid,
      account_sid: row.account_sid,
      call_sid: row.sid,
      source: spec.source,
      status: 'processing',
      channels: spec.channels,
      duration: null,
      start_time: momentOf(row, spec.startMs, this.voice.speed).toISOString(),
      price: null,
      price_unit: 'USD',
      error_code: null,
      status_callback: spec.statusCallback,
      segments: this.seal.close(row, `segments:${spec.sid}`, JSON.stringify(segments)),
      audio: null,
      date_created: now,
      date_updated: now,
    });
    await enqueueJob(tx, RECORDING_JOB, { sid: spec.sid, fromMs: spec.startMs, toMs: spec.endMs });
  }
}
