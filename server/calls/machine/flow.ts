// Running a document's verbs in order: starting each, following what it asks next (the next verb, a fetch), and
// ending the call (closing its recordings first).
import type { Verb } from '../twiml/verbs.js';
import type { MachineEffect, MachineState } from './types.js';
import { closeDial, startDial } from './dial.js';
import { gatherTimer, gatherWakeMs, startGather } from './gather.js';
import { emitRecording, pendingOf, type Fetch, type Outcome, type Run } from './pending.js';
import { closeRecord, recordTimer, recordWakeMs, startRecord } from './record.js';
import { soundVerbTimer, startSoundVerb } from './say-play.js';
import { cutTimeline } from './segments.js';

/** Twilio's bound on documents per call, against instructions that redirect to themselves forever. */
const MAX_DOCUMENTS = 100;

type End = Extract<MachineEffect, { type: 'end' }>;

/** The verb running now (a Gather for its prompts too). */
export function currentVerb<K extends Verb['verb']>(state: MachineState, kind: K): Extract<Verb, { verb: K }> {
  const verb = state.instructions.verbs[state.at[0]];
  if (verb?.verb !== kind) throw new Error(`call machine: expected ${kind} at ${state.at[0]}, found ${verb?.verb}`);
  return verb as Extract<Verb, { verb: K }>;
}

/** Runs verbs from the one at `at` until one waits, a fetch is asked, or the document ends. */
export function runFrom(run: Run, t: number): void {
  for (;;) {
    const state = run.state;
    const verb = state.instructions.verbs[state.at[0]];
    if (verb === undefined) return endCall(run, t, { status: 'completed', errorCode: null, errorMessage: null });
    if (!follow(run, startVerb(run, verb, t), t)) return;
  }
}

/** Carries out what a verb asked at its end; a timer or an event ended it (runs on to the next verb). */
export function settle(run: Run, outcome: Outcome, t: number): void {
  if (follow(run, outcome, t)) runFrom(run, t);
}

/** True when the call goes on to the next verb. */
function follow(run: Run, outcome: Outcome, t: number): boolean {
  if (outcome === 'wait') return false;
  if (outcome === 'next') {
    run.state.at = [run.state.at[0] + 1];
    run.state.played = 0;
    run.state.pending = { kind: 'running' };
    return true;
  }
  fetchDocument(run, outcome, t);
  return false;
}

function startVerb(run: Run, verb: Verb, t: number): Outcome {
  switch (verb.verb) {
    case 'Say':
    case 'Play':
    case 'Pause':
      return startSoundVerb(run, verb, t);
    case 'Gather':
      return startGather(run, verb, t);
    case 'Record':
      return startRecord(run, verb, t);
    case 'Dial':
      return startDial(run, verb, t);
    case 'Redirect':
      return { url: verb.url, method: verb.method, params: {} };
    case 'Hangup':
      endCall(run, t, { status: 'completed', errorCode: null, errorMessage: null });
      return 'wait';
    case 'Reject':
      endCall(run, t, verb.reason === 'busy' ? BUSY : REJECTED);
      return 'wait';
  }
}

const BUSY: Omit<End, 'type' | 'atMs'> = { status: 'busy', errorCode: null, errorMessage: null };
const REJECTED: Omit<End, 'type' | 'atMs'> = {
  status: 'failed',
  errorCode: 'rejected',
  errorMessage: 'The call was rejected by its instructions.',
};

/** What is due at `t` for the verb running now. */
export function onTimer(run: Run, t: number): void {
  const state = run.state;
  const kind = pendingOf(state).kind;
  if (kind === 'sound') {
    const verb = state.instructions.verbs[state.at[0]] as Extract<Verb, { verb: 'Say' | 'Play' | 'Pause' }>;
    settle(run, soundVerbTimer(run, verb, t), t);
  } else if (kind === 'gather') settle(run, gatherTimer(run, currentVerb(state, 'Gather'), t), t);
  else if (kind === 'record') settle(run, recordTimer(run, currentVerb(state, 'Record'), t), t);
}

/** Call time of the next `timer` event the machine needs. */
export function wakeAtMs(state: MachineState): number | null {
  const pending = pendingOf(state);
  if (pending.kind === 'sound') return pending.endMs;
  if (pending.kind === 'gather') return gatherWakeMs(pending);
  if (pending.kind === 'record') return recordWakeMs(pending, currentVerb(state, 'Record'));
  return null;
}

/**
 * Where the timeline must still start at `t`: the earliest window a recording open now holds (the whole call's, a
 * Record's, a recording Dial's); `t` when none is open, so only sounds still playing are kept.
 */
export function neededFromMs(state: MachineState, t: number): number {
  const pending = pendingOf(state);
  let fromMs = Math.min(t, state.callRecording?.startMs ?? t);
  if (pending.kind === 'record') fromMs = Math.min(fromMs, pending.openMs);
  if (pending.kind === 'dial' && pending.sid !== null) fromMs = Math.min(fromMs, pending.startMs);
  return fromMs;
}

/** Counts one more document for this call; false (and the call ended) past the bound. */
export function countDocument(run: Run, t: number): boolean {
  run.state.documents += 1;
  if (run.state.documents <= MAX_DOCUMENTS) return true;
  endCall(run, t, {
    status: 'failed',
    errorCode: 'instruction_loop',
    errorMessage: `More than ${MAX_DOCUMENTS} instruction documents were fetched in this call.`,
  });
  return false;
}

export function fetchDocument(run: Run, fetch: Fetch, t: number): void {
  // The verb that asked for the document is over, its recording emitted: ending the call at the bound below must not
  // stop it again (a second recording of one sid, a hangup of a dial that ended).
  run.state.pending = { kind: 'running' };
  if (!countDocument(run, t)) return;
  // Documents only grow, so their count tells this call's fetches apart.
  const id = `fetch-${run.state.documents}`;
  run.state.pending = { kind: 'fetching', id };
  run.effects.push({ type: 'fetch', id, ...fetch });
}

/** Stops the verb running now at `t`: what it played is cut there, and its recording (if any) is complete. */
export function stopVerb(run: Run, t: number): void {
  const state = run.state;
  const pending = pendingOf(state);
  if (pending.kind === 'record') closeRecord(run, currentVerb(state, 'Record'), pending, t);
  if (pending.kind === 'dial') closeDial(run, currentVerb(state, 'Dial'), pending, t);
  cutTimeline(state.timeline, t, 'platform');
  state.pending = { kind: 'running' };
}

/** Ends the leg at `t`: every recording is emitted before `end`, and nothing runs after. */
export function endCall(run: Run, t: number, end: Omit<End, 'type' | 'atMs'>): void {
  const state = run.state;
  stopVerb(run, t);
  cutTimeline(state.timeline, t, null);
  const whole = state.callRecording;
  if (whole !== null) {
    emitRecording(run, { ...whole, source: 'outbound_api', endMs: t, statusCallback: null });
    state.callRecording = null;
  }
  run.effects.push({ type: 'end', ...end, atMs: t });
  state.pending = { kind: 'ended' };
}
