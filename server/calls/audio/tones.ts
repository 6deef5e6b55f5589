// Steady tones: the recording beep, the tone the sandbox plays for `<Play>` of a URL, and US ringback.
import { SAMPLE_RATE, SIDE_PEAK, type Track, addSine } from './pcm.js';

export const BEEP_HZ = 1000;
/** US ringback (ANSI T1.401): 440 + 480 Hz, two seconds on, four off. */
const RINGBACK_HZ = [440, 480] as const;
const RINGBACK_ON_FRAMES = 2 * SAMPLE_RATE;
const RINGBACK_CYCLE_FRAMES = 6 * SAMPLE_RATE;

/** Adds a steady tone of `hz` starting at frame `at` to frames [from, to). */
export function drawTone(track: Track, at: number, from: number, to: number, hz: number): void {
  addSine(track, at, from, to, hz, SIDE_PEAK * 0.8);
}

/** Adds ringback whose first ring starts at frame `at` to frames [from, to). */
export function drawRingback(track: Track, at: number, from: number, to: number): void {
  const firstCycle = Math.floor((from - at) / RINGBACK_CYCLE_FRAMES);
  for (let cycle = at + firstCycle * RINGBACK_CYCLE_FRAMES; cycle < to; cycle += RINGBACK_CYCLE_FRAMES) {
    const start = Math.max(cycle, from);
    const end = Math.min(cycle + RINGBACK_ON_FRAMES, to);
    for (const hz of RINGBACK_HZ) if (start < end) addSine(track, cycle, start, end, hz, SIDE_PEAK * 0.4);
  }
}
