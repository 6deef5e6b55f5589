// Say, Play and Pause: sounds the leg plays, one loop iteration at a time (at the top level and as Gather prompts).
import { PLAY_URL_MS, dtmfMs, speechMs } from '../audio/durations.js';
import type { Sound } from '../audio/timeline.js';
import type { GatherChild } from '../twiml/verbs.js';
import type { Outcome, Run } from './pending.js';
import { appendSegment } from './segments.js';

/** The tone the sandbox plays instead of downloading `<Play>` audio. */
const PLAY_TONE_HZ = 440;

export function loopsOf(verb: GatherChild): number {
  return verb.verb === 'Pause' ? 1 : verb.loop;
}

function soundOf(verb: GatherChild): { sound: Sound; ms: number } {
  if (verb.verb === 'Say') return { sound: { kind: 'speech', text: verb.text }, ms: speechMs(verb.text) };
  if (verb.verb === 'Pause') return { sound: { kind: 'silence' }, ms: verb.length * 1000 };
  if (verb.digits !== null) return { sound: { kind: 'dtmf', digits: verb.digits }, ms: dtmfMs(verb.digits) };
  return { sound: { kind: 'tone', hz: PLAY_TONE_HZ }, ms: PLAY_URL_MS };
}

/** Plays one loop iteration from `atMs` (and lets a peer hear speech and digits); returns when it ends. */
export function playOnce(run: Run, verb: GatherChild, atMs: number): number {
  const { sound, ms } = soundOf(verb);
  appendSegment(run.state.timeline, { atMs, ms, side: 'platform', sound });
  if (sound.kind === 'speech' || sound.kind === 'dtmf') run.effects.push({ type: 'played', sound });
  return atMs + ms;
}

export function startSoundVerb(run: Run, verb: GatherChild, t: number): Outcome {
  run.state.played = 0;
  return playLoops(run, verb, t);
}

/** The iteration playing ended at `t`. */
export function soundVerbTimer(run: Run, verb: GatherChild, t: number): Outcome {
  run.state.played += 1;
  return playLoops(run, verb, t);
}

function playLoops(run: Run, verb: GatherChild, t: number): Outcome {
  const state = run.state;
  while (state.played < loopsOf(verb)) {
    const endMs = playOnce(run, verb, t);
    if (endMs > t) {
      state.pending = { kind: 'sound', endMs };
      return 'wait';
    }
    state.played += 1;
  }
  return 'next';
}
