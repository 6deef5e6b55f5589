// Real DTMF: each digit is its standard pair of tones (ITU-T Q.23) for DTMF_TONE_MS, then DTMF_GAP_MS of silence;
// `w` waits DTMF_WAIT_MS. The timing comes from durations.ts, which the machine uses too.
import { DTMF_GAP_MS, DTMF_TONE_MS, DTMF_WAIT_MS } from './durations.js';
import { SIDE_PEAK, type Track, addSine, framesIn } from './pcm.js';

const LOW_HZ = [697, 770, 852, 941] as const;
const HIGH_HZ = [1209, 1336, 1477, 1633] as const;
const KEYPAD = ['123A', '456B', '789C', '*0#D'];

/** The [low, high] tone pair of each key. */
const DTMF_PAIRS: ReadonlyMap<string, readonly [number, number]> = new Map(
  KEYPAD.flatMap((row, r) => [...row].map((key, c) => [key, [LOW_HZ[r], HIGH_HZ[c]] as const])),
);

const TONE_FRAMES = framesIn(DTMF_TONE_MS);
const DIGIT_FRAMES = framesIn(DTMF_TONE_MS + DTMF_GAP_MS);
const WAIT_FRAMES = framesIn(DTMF_WAIT_MS);

/** Draws `digits` starting at frame `at` into frames [from, to); a character that is not a key is a silent digit. */
export function drawDtmf(track: Track, at: number, from: number, to: number, digits: string): void {
  let start = at;
  for (const digit of digits) {
    if (start >= to) return;
    if (digit === 'w') {
      start += WAIT_FRAMES;
      continue;
    }
    const pair = DTMF_PAIRS.get(digit.toUpperCase());
    const begin = Math.max(start, from);
    const end = Math.min(start + TONE_FRAMES, to);
    if (pair && begin < end) for (const hz of pair) addSine(track, start, begin, end, hz, SIDE_PEAK * 0.45);
    start += DIGIT_FRAMES;
  }
}
