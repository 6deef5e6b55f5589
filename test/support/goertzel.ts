// A DTMF decoder for the tests, written apart from the renderer (its own keypad table): a Goertzel filter at each of
// the eight DTMF frequencies, frame by frame, as a telephone exchange listens. A frame holds a digit when nearly all
// its energy is one low and one high tone of similar strength (twist) well above their neighbours; a digit counts
// once it holds for two frames in a row, and the next one only after a frame without it.

const RATE = 8000;
/** 205 samples (25.6 ms), the classic DTMF frame at 8 kHz: three or more frames fit in one 100 ms tone. */
const FRAME = 205;
const LOW = [697, 770, 852, 941];
const HIGH = [1209, 1336, 1477, 1633];
const KEYS = ['123A', '456B', '789C', '*0#D'];
/** Quieter frames (RMS below 200) are silence. */
const MIN_MEAN_POWER = 200 ** 2;
/** The two tones must carry this share of the frame's energy. */
const MIN_PAIR_SHARE = 0.6;
/** Low and high tone within 8 dB of each other; each 6 dB above the others of its group. */
const MAX_TWIST = 10 ** (8 / 10);
const MIN_GROUP_MARGIN = 10 ** (6 / 10);

/**
 * The share of the energy of samples[start, start + n) that is a sine at `hz`: 1 for a pure tone at `hz`, about 0.5
 * for each tone of an equal pair, near 0 for anything without energy there.
 */
export function toneShare(samples: ArrayLike<number>, start: number, n: number, hz: number): number {
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / RATE);
  let [s1, s2, energy] = [0, 0, 0];
  for (let i = start; i < start + n; i++) {
    const s = samples[i] + coeff * s1 - s2;
    s2 = s1;
    s1 = s;
    energy += samples[i] * samples[i];
  }
  if (energy === 0) return 0;
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  return (2 * power) / (n * energy);
}

/** The digit one frame holds, or null. */
function frameDigit(samples: ArrayLike<number>, start: number): string | null {
  let energy = 0;
  for (let i = start; i < start + FRAME; i++) energy += samples[i] * samples[i];
  if (energy / FRAME < MIN_MEAN_POWER) return null;
  const low = LOW.map((hz) => toneShare(samples, start, FRAME, hz));
  const high = HIGH.map((hz) => toneShare(samples, start, FRAME, hz));
  const row = strongest(low);
  const col = strongest(high);
  if (row === null || col === null) return null;
  if (low[row] + high[col] < MIN_PAIR_SHARE) return null;
  if (low[row] > high[col] * MAX_TWIST || high[col] > low[row] * MAX_TWIST) return null;
  return KEYS[row][col];
}

/** The index of the clearly strongest value, or null when another comes within the group margin. */
function strongest(shares: number[]): number | null {
  const best = shares.indexOf(Math.max(...shares));
  return shares.every((s, i) => i === best || s * MIN_GROUP_MARGIN <= shares[best]) ? best : null;
}

/** The DTMF digits in `samples` (8 kHz), in order. */
export function decodeDtmf(samples: ArrayLike<number>): string {
  let digits = '';
  let [previous, run, armed] = [null as string | null, 0, true];
  for (let start = 0; start + FRAME <= samples.length; start += FRAME) {
    const digit = frameDigit(samples, start);
    run = digit !== null && digit === previous ? run + 1 : 1;
    if (digit === null) armed = true;
    else if (armed && run >= 2) {
      digits += digit;
      armed = false;
    }
    previous = digit;
  }
  return digits;
}
