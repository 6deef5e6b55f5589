// The call machine's entry points (contract in types.ts): pure, no clock, no I/O; the state is plain JSON.
import { BEEP_MS, speechMs } from '../audio/durations.js';
import type { InitialInput, MachineContext, MachineEvent, MachineState, Step } from './types.js';
import { dialEnded, dialHeard } from './dial.js';
import {
  endCall,
  fetchDocument,
  countDocument,
  currentVerb,
  neededFromMs,
  onTimer,
  runFrom,
  settle,
  stopVerb,
  wakeAtMs,
} from './flow.js';
import { gatherHeard } from './gather.js';
import { VOICEMAIL_GREETING } from './party.js';
import { pendingOf, type IdlePending, type Outcome, type Run } from './pending.js';
import { recordHeard } from './record.js';
import { appendHeard, appendSegment, keepFrom } from './segments.js';

/** Guards against a verb that keeps asking to wake at a time already past (a bug, not an input). */
const MAX_TIMERS_PER_STEP = 1_000_000;

export function initialState(input: InitialInput): MachineState {
  const fetch = input.instructions === null && input.url !== null ? { url: input.url, method: input.method } : null;
  const idle: IdlePending = { kind: 'idle', fetch, recordCall: input.recordCall };
  return {
    instructions: input.instructions ?? { verbs: [], url: input.url },
    at: [0],
    played: 0,
    documents: 0,
    party: input.party,
    nowMs: 0,
    wakeAtMs: null,
    pending: idle,
    timeline: [],
    callRecording: null,
  };
}

/**
 * Moves the machine to call time `nowMs` (doing every timer due by then, even when the driver is late) and
 * applies `event`. An event that does not apply changes nothing and emits nothing.
 */
export function advance(state: MachineState, event: MachineEvent, nowMs: number, ctx: MachineContext): Step {
  if (pendingOf(state).kind === 'ended') return { state, effects: [] };
  const run: Run = { state: structuredClone(state), effects: [], ctx };
  const t = Math.max(nowMs, state.nowMs);
  let changed = catchUp(run, t);
  if (pendingOf(run.state).kind !== 'ended') changed = apply(run, event, t) || changed;
  if (!changed) return { state, effects: [] };
  catchUp(run, t);
  run.state.nowMs = t;
  keepFrom(run.state.timeline, neededFromMs(run.state, t));
  return { state: run.state, effects: run.effects };
}

/** Wake-ups looked through at most by `nextEffectAtMs` before it settles for the last one it reached. */
const MAX_LOOKAHEAD_TIMERS = 64;

/**
 * The call time of the first wake-up at which the machine would do something outside itself (an effect other than a
 * sound nobody on the platform hears), or null when only an outside event can move it on. The wake-ups before it
 * change only the machine's own state, and any event catches them up at their own times (see `advance`), so its
 * driver need not run them one by one: a `<Say loop="8">` is one wake-up, not eight.
 */
export function nextEffectAtMs(state: MachineState): number | null {
  if (state.wakeAtMs === null || pendingOf(state).kind === 'ended') return state.wakeAtMs;
  const run: Run = { state: structuredClone(state), effects: [], ctx: LOOKAHEAD_CONTEXT };
  const heard = state.party.kind === 'peer';
  for (let timers = 0; timers < MAX_LOOKAHEAD_TIMERS; timers++) {
    const due = run.state.wakeAtMs;
    if (due === null) return null;
    run.state.nowMs = due;
    onTimer(run, due);
    if (run.effects.some((effect) => heard || effect.type !== 'played')) return due;
    run.effects.length = 0;
    run.state.wakeAtMs = wakeAtMs(run.state);
  }
  return run.state.wakeAtMs;
}

/** What the look-ahead makes is thrown away with it: the step that runs those wake-ups makes its own. */
const LOOKAHEAD_CONTEXT: MachineContext = {
  newRecordingSid: () => 'lookahead',
  newCallSid: () => 'lookahead',
  recordingUrl: () => 'lookahead',
};

/** Delivers the timers due by `t`, each at its own time; true when there was one. */
function catchUp(run: Run, t: number): boolean {
  const state = run.state;
  let timers = 0;
  for (let due = state.wakeAtMs; due !== null && due <= t; due = state.wakeAtMs) {
    if (++timers > MAX_TIMERS_PER_STEP) throw new Error('call machine: a verb does not move call time on');
    state.nowMs = due;
    onTimer(run, due);
    state.wakeAtMs = wakeAtMs(state);
  }
  return timers > 0;
}

/** Applies an event at `t`; false when it does not apply in this state. */
function apply(run: Run, event: MachineEvent, t: number): boolean {
  const state = run.state;
  const pending = pendingOf(state);
  switch (event.type) {
    case 'start':
      if (pending.kind !== 'idle') return false;
      start(run, pending, t);
      break;
    case 'timer':
      return false;
    case 'fetched':
      if (pending.kind !== 'fetching' || pending.id !== event.id) return false;
      state.instructions = event.instructions;
      state.at = [0];
      state.played = 0;
      runFrom(run, t);
      break;
    case 'fetchFailed':
      if (pending.kind !== 'fetching' || pending.id !== event.id) return false;
      endCall(run, t, { status: 'failed', errorCode: event.errorCode, errorMessage: event.errorMessage });
      break;
    case 'heard': {
      let outcome: Outcome | null = null;
      if (pending.kind === 'gather') outcome = gatherHeard(run, currentVerb(state, 'Gather'), event, t);
      else if (pending.kind === 'record') outcome = recordHeard(run, currentVerb(state, 'Record'), event, t);
      else if (pending.kind === 'dial') outcome = dialHeard(run, event, t);
      // What no verb listens for is still heard on the line: a recording open now holds it.
      if (outcome === null) appendHeard(state.timeline, event.sound, t);
      else settle(run, outcome, t);
      break;
    }
    case 'dialEnded':
      if (pending.kind !== 'dial' || pending.id !== event.id) return false;
      settle(run, dialEnded(run, currentVerb(state, 'Dial'), event, t), t);
      break;
    case 'redirect':
      if (pending.kind === 'idle' || (event.instructions === null && event.url === null)) return false;
      redirect(run, event, t);
      break;
    case 'hangup':
      endCall(run, t, { status: 'completed', errorCode: null, errorMessage: null });
      break;
  }
  state.wakeAtMs = wakeAtMs(state);
  return true;
}

function start(run: Run, idle: IdlePending, t: number): void {
  const state = run.state;
  if (idle.recordCall !== null) {
    state.callRecording = { sid: run.ctx.newRecordingSid(), startMs: t, channels: idle.recordCall.channels };
  }
  if (state.party.kind === 'voicemail') {
    // The machine's greeting and beep play from the answer, whatever the leg plays meanwhile.
    const greetingMs = speechMs(VOICEMAIL_GREETING);
    appendSegment(state.timeline, {
      atMs: t,
      ms: greetingMs,
      side: 'party',
      sound: { kind: 'speech', text: VOICEMAIL_GREETING },
    });
    appendSegment(state.timeline, { atMs: t + greetingMs, ms: BEEP_MS, side: 'party', sound: { kind: 'beep' } });
  }
  if (idle.fetch !== null) fetchDocument(run, { ...idle.fetch, params: {} }, t);
  else runFrom(run, t);
}

function redirect(run: Run, event: Extract<MachineEvent, { type: 'redirect' }>, t: number): void {
  const state = run.state;
  stopVerb(run, t);
  if (event.instructions === null) {
    fetchDocument(run, { url: event.url!, method: event.method, params: {} }, t);
  } else if (countDocument(run, t)) {
    state.instructions = event.instructions;
    state.at = [0];
    state.played = 0;
    runFrom(run, t);
  }
}
