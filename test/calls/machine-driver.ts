// Drives the call machine as the call driver would, without one: delivers `timer` events at `wakeAtMs`, answers
// `fetch` effects from a table of documents and `dial` effects from a table of outcomes, and checks after every
// step that the state survives JSON (it is stored with the call) and that its next timer is in its future.
import { expect } from 'vitest';
import type {
  DialVerb,
  GatherChild,
  GatherVerb,
  Instructions,
  PauseVerb,
  PlayVerb,
  RecordVerb,
  SayVerb,
  Verb,
} from '../../server/calls/twiml/verbs.js';
import type {
  InitialInput,
  MachineContext,
  MachineEffect,
  MachineEvent,
  MachineState,
} from '../../server/calls/machine/types.js';
import { advance, initialState, nextEffectAtMs } from '../../server/calls/machine/run.js';
import type { Segment } from '../../server/calls/audio/timeline.js';

// Verbs built directly with Twilio's defaults (the TwiML parser is written elsewhere).
export const say = (text: string, loop = 1): SayVerb => ({ verb: 'Say', text, voice: 'man', language: 'en-US', loop });
export const playUrl = (url: string, loop = 1): PlayVerb => ({ verb: 'Play', url, digits: null, loop });
export const playDigits = (digits: string, loop = 1): PlayVerb => ({ verb: 'Play', url: null, digits, loop });
export const pause = (length = 1): PauseVerb => ({ verb: 'Pause', length });
export const hangup = (): Verb => ({ verb: 'Hangup' });
export const reject = (reason: 'busy' | 'rejected'): Verb => ({ verb: 'Reject', reason });
export const redirect = (url: string, method: 'GET' | 'POST' = 'POST'): Verb => ({ verb: 'Redirect', url, method });

export function gather(
  options: Partial<Omit<GatherVerb, 'verb' | 'children'>>,
  ...children: GatherChild[]
): GatherVerb {
  return {
    verb: 'Gather',
    input: ['dtmf'],
    numDigits: null,
    timeout: 5,
    finishOnKey: '#',
    action: null,
    method: 'POST',
    actionOnEmptyResult: false,
    children,
    ...options,
  };
}

export function record(options: Partial<Omit<RecordVerb, 'verb'>> = {}): RecordVerb {
  return {
    verb: 'Record',
    maxLength: 3600,
    timeout: 5,
    finishOnKey: '1234567890*#',
    playBeep: true,
    action: null,
    method: 'POST',
    recordingStatusCallback: null,
    ...options,
  };
}

export function dial(number: string, options: Partial<Omit<DialVerb, 'verb' | 'number'>> = {}): DialVerb {
  return {
    verb: 'Dial',
    number,
    callerId: null,
    timeout: 30,
    timeLimit: 14400,
    action: null,
    method: 'POST',
    record: 'do-not-record',
    ...options,
  };
}

export const inline = (...verbs: Verb[]): Instructions => ({ verbs, url: null });

interface Emitted {
  atMs: number;
  effect: MachineEffect;
}

export interface Run {
  state: MachineState;
  /**
   * Everything the call sounded like: the machine keeps only what an open recording still needs, so the driver
   * gathers the segments as they leave its timeline.
   */
  timeline: Segment[];
  emitted: Emitted[];
  /** Effects of one type, in order. */
  of<T extends MachineEffect['type']>(type: T): (Extract<MachineEffect, { type: T }> & { atMs: number })[];
  end(): Extract<MachineEffect, { type: 'end' }> & { atMs: number };
}

export interface Scenario {
  input?: Partial<InitialInput>;
  /** Documents by URL; a fetch of any other URL fails (`fetchFailed`, code `fetch_failed`). */
  documents?: Record<string, Verb[]>;
  /** How each dialled number ends: after `afterMs` of call time. */
  dials?: Record<string, { afterMs: number; status: 'completed' | 'busy' | 'no-answer'; durationS: number }>;
  /** Outside events (heard, redirect, hangup) at call times. */
  events?: { atMs: number; event: MachineEvent }[];
}

export const testContext = (): MachineContext => {
  let made = 0;
  let calls = 0;
  return {
    newRecordingSid: () => `RE${String((made += 1)).padStart(32, '0')}`,
    newCallSid: () => `CA${String((calls += 1)).padStart(32, '0')}`,
    recordingUrl: (sid) => `https://media.example/${sid}.wav`,
  };
};

/**
 * Runs a call to its end (or until nothing more can happen). It runs it twice: waking the machine at every
 * `wakeAtMs`, and only at `nextEffectAtMs` as the engine does; both must do the same things at the same times.
 */
export function drive(scenario: Scenario): Run {
  const run = runMachine(scenario, 'every');
  const lazily = runMachine(scenario, 'effects');
  const seen = (r: Omit<Run, 'timeline'>) => r.emitted.filter((e) => e.effect.type !== 'played');
  expect(seen(lazily)).toEqual(seen(run));
  // The machine keeps only what an open recording needs: the same call recorded whole shows all it sounded like.
  const whole = scenario.input?.recordCall
    ? run
    : runMachine({ ...scenario, input: { ...scenario.input, recordCall: { channels: 1 } } }, 'every');
  const recorded = whole.of('recorded').find((r) => r.recording.source === 'outbound_api');
  return { ...run, timeline: recorded?.segments ?? whole.state.timeline };
}

/** `every`: a timer at each wake-up the machine asks for; `effects`: only at those where it would do something. */
function runMachine(scenario: Scenario, wakes: 'every' | 'effects'): Omit<Run, 'timeline'> {
  const ctx = testContext();
  let state = initialState({
    instructions: null,
    url: null,
    method: 'POST',
    party: { kind: 'listener' },
    recordCall: null,
    ...scenario.input,
  });
  const queue = [{ atMs: 0, event: { type: 'start' } as MachineEvent }, ...(scenario.events ?? [])];
  const emitted: Emitted[] = [];
  for (let steps = 0; steps < 100_000; steps++) {
    queue.sort((a, b) => a.atMs - b.atMs);
    const wake = wakes === 'every' ? state.wakeAtMs : nextEffectAtMs(state);
    const next = queue[0] !== undefined && (wake === null || queue[0].atMs <= wake) ? queue.shift() : undefined;
    if (next === undefined && wake === null) break;
    const atMs = next?.atMs ?? wake!;
    const step = advance(state, next?.event ?? { type: 'timer' }, atMs, ctx);
    state = JSON.parse(JSON.stringify(step.state)) as MachineState;
    expect(state).toEqual(step.state);
    // Every timer due by the step's time was done in it: the next one is later.
    if (state.wakeAtMs !== null) expect(state.wakeAtMs).toBeGreaterThan(state.nowMs);
    for (const effect of step.effects) {
      emitted.push({ atMs, effect });
      queue.push(...answer(scenario, effect, atMs));
    }
  }
  return {
    state,
    emitted,
    of: (type) => emitted.filter((e) => e.effect.type === type).map((e) => ({ ...e.effect, atMs: e.atMs })) as never,
    end() {
      const ends = this.of('end');
      expect(ends).toHaveLength(1);
      return ends[0];
    },
  };
}

function answer(scenario: Scenario, effect: MachineEffect, atMs: number): { atMs: number; event: MachineEvent }[] {
  if (effect.type === 'fetch') {
    const verbs = scenario.documents?.[effect.url];
    const event: MachineEvent =
      verbs === undefined
        ? {
            type: 'fetchFailed',
            id: effect.id,
            errorCode: 'fetch_failed',
            errorMessage: `No document at ${effect.url}.`,
          }
        : { type: 'fetched', id: effect.id, instructions: { verbs, url: effect.url } };
    return [{ atMs, event }];
  }
  if (effect.type === 'dial') {
    const outcome = scenario.dials?.[effect.number];
    if (outcome === undefined) return [];
    const { afterMs, status, durationS } = outcome;
    const event: MachineEvent = { type: 'dialEnded', id: effect.id, status, callSid: effect.id, durationS };
    return [{ atMs: atMs + afterMs, event }];
  }
  return [];
}
