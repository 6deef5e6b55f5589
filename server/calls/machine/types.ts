// The call machine's contract: a pure state machine that runs one answered call leg's instructions. The driver
// (../engine) persists its state with the call, turns its effects into work (fetches, child calls, recordings,
// webhooks, jobs) and feeds it events; it never reads XML, the clock or the database itself.
import type { DialRecord, HttpMethod, Instructions } from '../twiml/verbs.js';
import type { Segment, Sound } from '../audio/timeline.js';

/**
 * Who is at the other end of this leg, as the sandbox network plays them. The machine acts their part itself
 * (deterministically), except `peer`, another leg on this platform, whose sounds arrive as `heard` events.
 */
export type Party =
  /** Listens, never presses or says anything; a Record hears a short spoken message, then silence. */
  | { kind: 'listener' }
  /** Presses `digits` one second (call time) after each Gather starts listening for dtmf. */
  | { kind: 'presser'; digits: string }
  /** Says `phrase` one second after each Gather listening for speech starts (confidence 0.9). */
  | { kind: 'speaker'; phrase: string }
  /** A voicemail machine: its greeting and beep play first (answered_by machine_start), then it records. */
  | { kind: 'voicemail' }
  /** Another call leg on this platform (sid): what this leg plays reaches it through the driver. */
  | { kind: 'peer'; callSid: string };

export interface RecordingSpec {
  /** Made by the driver (ctx.newRecordingSid) when the recording starts, so the action can carry it. */
  sid: string;
  source: 'outbound_api' | 'record_verb' | 'dial_verb';
  channels: 1 | 2;
  /** Call time window [startMs, endMs) of the timeline it holds. */
  startMs: number;
  endMs: number;
  /** The Record verb's recordingStatusCallback, if any. */
  statusCallback: string | null;
}

/** Everything the machine keeps between events: JSON, stored with the call. */
export interface MachineState {
  instructions: Instructions;
  /** Index path of the verb running now: [verb] or [gatherVerb, child]. */
  at: number[];
  /** Loop iterations of the verb running now already played. */
  played: number;
  /** Documents fetched or redirected to during this call (more than 100 ends it `failed`). */
  documents: number;
  party: Party;
  /** Call time (ms) when the machine last stepped. */
  nowMs: number;
  /** Call time (ms) of its next `timer` event; null when only an outside event can move it. */
  wakeAtMs: number | null;
  /** The verb-specific waiting (gather input so far, recording in progress, dial in progress ...). */
  pending: unknown;
  timeline: Segment[];
  /** The whole-call recording (`record: true`), open until the call ends. */
  callRecording: { sid: string; startMs: number; channels: 1 | 2 } | null;
}

export type MachineEvent =
  /** The leg was answered: run `instructions` (inline), or fetch them (`url` set, `instructions` empty). */
  | { type: 'start' }
  /** The call time of `wakeAtMs` has come. */
  | { type: 'timer' }
  /**
   * A fetch asked by the `fetch` effect `id` answered valid instructions. An answer to another id (a fetch a live
   * redirect superseded) is ignored.
   */
  | { type: 'fetched'; id: string; instructions: Instructions }
  /** ... or did not: the call ends `failed` with this code and message. */
  | { type: 'fetchFailed'; id: string; errorCode: string; errorMessage: string }
  /** Sound from the other end (a peer leg's Play digits / Say, or the sandbox API's injected input). */
  | { type: 'heard'; sound: Extract<Sound, { kind: 'dtmf' | 'speech' }>; confidence?: number }
  /** The child call of the `dial` effect `id` ended (another id, a Dial stopped before, is ignored). */
  | {
      type: 'dialEnded';
      id: string;
      status: 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';
      callSid: string | null;
      durationS: number;
    }
  /** Live change (POST /v1/calls/{sid} with url/twiml): replaces what runs now, at once. */
  | { type: 'redirect'; instructions: Instructions | null; url: string | null; method: HttpMethod }
  /** The other end hung up, or the API hung up this leg (status completed). */
  | { type: 'hangup' };

export type MachineEffect =
  /**
   * Fetch instructions: the driver adds the call's own parameters (CallSid, From, To, CallStatus, ...) to `params`,
   * and answers with `fetched`/`fetchFailed` carrying `id`.
   */
  | { type: 'fetch'; id: string; url: string; method: HttpMethod; params: Record<string, string> }
  /** Place the child call of a Dial with `id` as its sid (ctx.newCallSid); its end comes back as `dialEnded`. */
  | {
      type: 'dial';
      id: string;
      number: string;
      callerId: string | null;
      timeoutS: number;
      timeLimitS: number;
      record: DialRecord;
    }
  /** A redirect or a hangup stopped the Dial `id` while its child leg may still be live: the driver hangs it up. */
  | { type: 'hangupDial'; id: string }
  /** This leg played `sound`: the driver passes it to a `peer` party as `heard`. */
  | { type: 'played'; sound: Extract<Sound, { kind: 'dtmf' | 'speech' }> }
  /** A recording is complete: the driver stores it `processing` and renders its audio from `segments`. */
  | { type: 'recorded'; recording: RecordingSpec; segments: Segment[] }
  /** The leg ends: `completed` (hung up or instructions done), `busy`/`failed` (Reject), or `failed` (a fault). */
  | {
      type: 'end';
      status: 'completed' | 'busy' | 'failed' | 'canceled';
      errorCode: string | null;
      errorMessage: string | null;
      /** The call time it ended at: the leg's duration, exact even when the driver woke the machine late. */
      atMs: number;
    };

export interface MachineContext {
  /** A new RE sid (ids.ts), for a recording the machine starts. */
  newRecordingSid(): string;
  /** A new CA sid (ids.ts), for the child leg of a Dial the machine starts. */
  newCallSid(): string;
  /** The absolute media URL of a recording, for RecordingUrl. */
  recordingUrl(sid: string): string;
}

export interface Step {
  state: MachineState;
  effects: MachineEffect[];
}

/**
 * The machine's two entry points, implemented in machine/run.ts:
 *   initialState(input): MachineState
 *   advance(state, event, nowMs, ctx): Step  // nowMs: the call time of the event
 */
export interface InitialInput {
  /** Inline instructions, or null to fetch `url` at start. */
  instructions: Instructions | null;
  url: string | null;
  method: HttpMethod;
  party: Party;
  /** `record: true` on the call: record from the answer, with this many channels. */
  recordCall: { channels: 1 | 2 } | null;
}
