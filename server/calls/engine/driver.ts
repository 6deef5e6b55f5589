// The driver around the pure call machine: it loads a leg's machine state, advances it by one event at the call
// time of now, saves it (bumping the leg's step, so work scheduled before is known stale) and acts on its effects,
// all in the caller's transaction. It also owns the lifecycle changes that touch other legs: the answer, the one
// final transition of a leg and what that ends or tells elsewhere (its peer, its Dial's children, its parent).
import type { Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';
import type { VoiceCarrier } from '../../carrier/voice.js';
import type { WebhookService } from '../../webhooks/service.js';
import type { MachineContext, MachineEffect, MachineEvent, MachineState, Party } from '../machine/types.js';
import type { Instructions } from '../twiml/verbs.js';
import { advance, initialState, nextEffectAtMs } from '../machine/run.js';
import { parseInlineTwiml } from '../twiml/parse-cache.js';
import { parseTwiml } from '../twiml/parse.js';
import { newSid } from '../../ids.js';
import { nowIso } from '../../clock.js';
import { callEvent } from './events.js';
import { LIVE_STATUSES, callBySid, changeCall, isLive, liveChildren, saveMachine } from './store.js';
import { callTimeMs, wholeSeconds } from './timing.js';
import { NO_VOICE_APP } from './legs.js';
import type { EffectWork } from './work.js';
import type { PublicUrl } from '../../http/public-url.js';
import type { LegSeal } from './leg-seal.js';
import type { LegHooks } from './leg-hooks.js';

/** Events due at the step they were scheduled at (a wake-up, a fetch's answer): stale once the leg moved on. */
const STEP_BOUND = new Set<MachineEvent['type']>(['timer', 'fetched', 'fetchFailed']);
const MAX_FEED_ATTEMPTS = 5;

export type FinalStatus = 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';

export interface Failure {
  errorCode: string;
  errorMessage: string;
}

/** A Dial leg with no number of its account to show: the call's own was released since it began. */
const FROM_NUMBER_RELEASED: Failure = {
  errorCode: 'from_number_released',
  errorMessage: "This call's number left the account during the call, and no callerId the account holds was given.",
};

/** A leg whose number left the account between its placing and its ringing. */
export const RELEASED_BEFORE_RINGING: Failure = {
  errorCode: 'from_number_released',
  errorMessage: 'The number this call is from left the account before the call rang.',
};

export class CallDriver {
  constructor(
    /** What effects become (jobs, child legs, recordings), kept apart from the stepping. */
    private readonly work: EffectWork,
    private readonly voice: VoiceCarrier,
    private readonly webhooks: WebhookService,
    private readonly publicUrl: PublicUrl,
    /** Seals what a verification leg stores (see leg-seal.ts). */
    private readonly seal: LegSeal,
    /** Told of every verification leg's end, after its final transition (see verification-calls.ts). */
    private readonly verificationEnded: (tx: Tx, leg: CallRow) => Promise<void>,
    /** Told of every leg's end, after its final event (see leg-hooks.ts). */
    private readonly hooks: LegHooks,
  ) {}

  /** Feeds `event` to an answered leg's machine and acts on what it does; nothing for a leg without one. */
  async feed(tx: Tx, row: CallRow, event: MachineEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const fed = await this.feedAt(tx, row, event);
      if (fed !== 'moved on') return;
      // Another transaction changed the leg since `row` was read (PostgreSQL runs them side by side): an event
      // of any step is fed again to the leg as it is now; one due at the step read has been overtaken.
      const now = await callBySid(tx.db, row.sid);
      if (!now || now.status !== 'in-progress' || STEP_BOUND.has(event.type)) return;
      if (event.type === 'start' || attempt >= MAX_FEED_ATTEMPTS)
        throw new Error(`call ${row.sid} moved on while step ${row.step} was running`);
      row = now;
    }
  }

  private async feedAt(tx: Tx, row: CallRow, event: MachineEvent): Promise<'moved on' | void> {
    if (row.status !== 'in-progress' || !row.machine) return;
    const state = JSON.parse(this.seal.open(row, 'machine', row.machine)) as MachineState;
    const nowMs = callTimeMs(row, tx.clock.now(), this.voice.speed);
    const step = advance(state, event, nowMs, this.context(tx));
    // An event the machine ignores changes nothing, so work in flight (a fetch) is not made stale by it.
    if (!step.effects.length && sameState(state, step.state)) return;
    const machine = this.seal.close(row, 'machine', JSON.stringify(step.state));
    const saved = await saveMachine(tx.db, row.sid, row.step, machine, nowIso(tx.clock));
    if (!saved) return 'moved on';
    // A leg that ends needs no next run; one that goes on runs next when its machine would do something outside.
    if (!step.effects.some((e) => e.type === 'end')) await this.work.scheduleRun(tx, saved, nextEffectAtMs(step.state));
    for (const effect of step.effects) await this.act(tx, saved, effect);
  }

  private async act(tx: Tx, row: CallRow, effect: MachineEffect): Promise<void> {
    switch (effect.type) {
      case 'fetch':
        return this.work.fetch(tx, row, effect);
      case 'dial': {
        const unplaced = await this.work.dial(tx, row, effect);
        if (unplaced) await this.finish(tx, unplaced, 'failed', FROM_NUMBER_RELEASED);
        return;
      }
      case 'recorded':
        return this.work.recorded(tx, row, effect);
      case 'hangupDial': {
        const child = await callBySid(tx.db, effect.id);
        if (child?.parent_call_sid === row.sid) await this.hangup(tx, child);
        return;
      }
      case 'played': {
        const peer = row.peer_sid ? await callBySid(tx.db, row.peer_sid) : undefined;
        if (peer) await this.feed(tx, peer, { type: 'heard', sound: effect.sound });
        return;
      }
      case 'end': {
        const now = await callBySid(tx.db, row.sid);
        const failure = effect.errorCode
          ? { errorCode: effect.errorCode, errorMessage: effect.errorMessage ?? '' }
          : null;
        if (now) await this.finish(tx, now, effect.status, failure, effect.atMs);
      }
    }
  }

  /** Marks a ringing (or queued) leg answered, with its machine ready; undefined when it is no longer ringing. */
  async markAnswered(
    tx: Tx,
    row: CallRow,
    answeredBy: CallRow['answered_by'],
    party: Party,
    /** The answer's moment (ISO): peers answered together share it. */
    at: string = nowIso(tx.clock),
  ): Promise<CallRow | undefined> {
    let instructions: Instructions | null = null;
    if (row.twiml) {
      // A verification leg's instructions hold its code: parsed each time, never kept in the cache.
      const parsed =
        row.purpose === 'verification'
          ? parseTwiml(this.seal.open(row, 'twiml', row.twiml), null)
          : parseInlineTwiml(row.twiml);
      if (!parsed.ok) {
        await this.finish(tx, row, 'failed', { errorCode: 'invalid_instructions', errorMessage: parsed.error });
        return undefined;
      }
      instructions = parsed.instructions;
    } else if (!row.url && row.direction === 'inbound') instructions = NO_VOICE_APP;
    // A Dial's leg runs no instructions of its own: it is the line its parent's Dial bridges to.
    const runs = instructions !== null || row.url !== null;
    const machine = runs
      ? initialState({
          instructions,
          url: row.url,
          method: row.method ?? 'POST',
          party,
          recordCall: row.record ? { channels: row.recording_channels === 2 ? 2 : 1 } : null,
        })
      : null;
    return changeCall(tx.db, row.sid, ['queued', 'ringing'], {
      status: 'in-progress',
      start_time: at,
      answered_by: answeredBy,
      machine: machine && this.seal.close(row, 'machine', JSON.stringify(machine)),
      date_updated: at,
    });
  }

  /** The answer's event, then the machine's start (or, without one, the Dial leg's timed end). */
  async begin(tx: Tx, answered: CallRow): Promise<void> {
    // Its peer's start may have ended both legs already (a Hangup at once): then its final event was its last. It
    // may also have played to it (heard, before its own start): the fresh row carries that step.
    const row = await callBySid(tx.db, answered.sid);
    if (row?.status !== 'in-progress') return;
    await callEvent(this.webhooks, tx, row, 'answered');
    if (row.machine) await this.feed(tx, row, { type: 'start' });
    else await this.work.scheduleRun(tx, row, null);
  }

  /**
   * The one final transition of a live leg: end time, duration and price, its final event, then the legs it ends
   * (its peer, its Dial's children) and the parent it tells. Nothing when the leg had ended already.
   */
  async finish(
    tx: Tx,
    row: CallRow,
    status: FinalStatus,
    failure: Failure | null = null,
    /** The call time its machine ended it at; else the clock says (a hang-up, an unanswered leg). */
    endedAtMs?: number,
  ): Promise<void> {
    const now = tx.clock.now();
    const callMs = endedAtMs ?? callTimeMs(row, now, this.voice.speed);
    const duration = row.start_time ? wholeSeconds(callMs) : 0;
    const direction = row.direction === 'inbound' ? 'inbound' : 'outbound';
    const { price, unit } = this.voice.price({ to: row.to_number, direction }, duration);
    const ended = await changeCall(tx.db, row.sid, LIVE_STATUSES, {
      status,
      end_time: new Date(now).toISOString(),
      duration,
      price,
      price_unit: unit,
      error_code: failure?.errorCode ?? null,
      error_message: failure?.errorMessage ?? null,
      date_updated: new Date(now).toISOString(),
    });
    if (!ended) return;
    await callEvent(this.webhooks, tx, ended, status);
    if (ended.purpose === 'verification') await this.verificationEnded(tx, ended);
    await this.hooks.ended(tx, ended);
    const peer = ended.peer_sid ? await callBySid(tx.db, ended.peer_sid) : undefined;
    if (peer) await this.hangup(tx, peer);
    for (const child of await liveChildren(tx.db, ended.sid)) await this.hangup(tx, child);
    const parent = ended.parent_call_sid ? await callBySid(tx.db, ended.parent_call_sid) : undefined;
    // A Dial's id is its child leg's sid: a parent whose Dial was stopped since ignores this end.
    const dialEnded = { type: 'dialEnded', id: ended.sid, status, callSid: ended.sid, durationS: duration } as const;
    if (parent) await this.feed(tx, parent, dialEnded);
  }

  /** Hangs up a leg: an answered one through its machine (so its recordings close), else it is canceled. */
  async hangup(tx: Tx, row: CallRow): Promise<void> {
    if (!isLive(row)) return;
    if (row.status !== 'in-progress') return this.finish(tx, row, 'canceled');
    await this.feed(tx, row, { type: 'hangup' });
    const after = await callBySid(tx.db, row.sid);
    if (after) await this.finish(tx, after, 'completed');
  }

  private context(tx: Tx): MachineContext {
    return {
      newRecordingSid: () => newSid('recording', tx.clock.now()),
      newCallSid: () => newSid('call', tx.clock.now()),
      recordingUrl: (sid) => `${this.publicUrl.value}/v1/recordings/${sid}/media`,
    };
  }
}

function sameState(before: MachineState, after: MachineState): boolean {
  return JSON.stringify({ ...before, nowMs: 0 }) === JSON.stringify({ ...after, nowMs: 0 });
}
