// The machine's working parts: one step's mutable copy, what each verb waits for, and what a verb asks next.
import type { HttpMethod } from '../twiml/verbs.js';
import type { Act } from './party.js';
import type { MachineContext, MachineEffect, MachineState, RecordingSpec } from './types.js';
import { windowOf } from './segments.js';

/** One step: a copy of the state changed in place, and the effects emitted so far, in order. */
export interface Run {
  state: MachineState;
  effects: MachineEffect[];
  ctx: MachineContext;
}

/** Not started: what `start` does (fetch the instructions when they were not given inline). */
export interface IdlePending {
  kind: 'idle';
  fetch: { url: string; method: HttpMethod } | null;
  recordCall: { channels: 1 | 2 } | null;
}

/** A Say, Play or Pause (at the top level) playing one loop iteration until `endMs`. */
interface SoundPending {
  kind: 'sound';
  endMs: number;
}

export interface GatherPending {
  kind: 'gather';
  /** End of the prompt playing now; null once the prompts are over (played out, or stopped by input). */
  promptEndMs: number | null;
  digits: string;
  /** When the wait for (more) input times out; null while prompts play or speech is being heard. */
  timeoutAtMs: number | null;
  /** What the sandbox party will do, in order. */
  acts: Act[];
  /** Speech being heard: the gather ends with it at `endMs`. */
  speech: { text: string; confidence: number; endMs: number } | null;
}

export interface RecordPending {
  kind: 'record';
  sid: string;
  /** The recording window opens here (after the beep). */
  openMs: number;
  /** End of the last sound heard: `timeout` seconds of silence after it end the recording. */
  lastSoundEndMs: number;
  acts: Act[];
}

export interface DialPending {
  kind: 'dial';
  /** The dial effect's id: the child leg's sid. */
  id: string;
  startMs: number;
  /** The Dial's recording, when it records. */
  sid: string | null;
}

export type Pending =
  | IdlePending
  | SoundPending
  | GatherPending
  | RecordPending
  | DialPending
  /** Waiting for the answer to the fetch effect `id`. */
  | { kind: 'fetching'; id: string }
  | { kind: 'ended' };

export function pendingOf(state: MachineState): Pending {
  return state.pending as Pending;
}

export interface Fetch {
  url: string;
  method: HttpMethod;
  params: Record<string, string>;
}

/** What a verb does next: keep waiting (or the call ended), go on to the next verb, or fetch a document. */
export type Outcome = 'wait' | 'next' | Fetch;

/**
 * Where a verb's result goes: its `action`; without one, Twilio requests the document's own URL again; a document
 * given inline has none, so the call goes on to the next verb.
 */
export function actionOrDocument(
  action: string | null,
  method: HttpMethod,
  params: Record<string, string>,
  documentUrl: string | null,
): Outcome {
  const url = action ?? documentUrl;
  return url === null ? 'next' : { url, method, params };
}

/** Emits a finished recording of the timeline's window [startMs, endMs). */
export function emitRecording(run: Run, recording: RecordingSpec): void {
  const segments = windowOf(run.state.timeline, recording.startMs, recording.endMs);
  run.effects.push({ type: 'recorded', recording, segments });
}

/** Whole seconds, rounded up (Twilio's RecordingDuration). */
export function wholeSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
