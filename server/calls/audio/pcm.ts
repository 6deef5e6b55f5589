// The sample format every recording is rendered in, and the one way sounds are added to it: 8 kHz, 16-bit,
// interleaved channels, summed with saturation so loud overlaps flatten instead of wrapping around.

export const SAMPLE_RATE = 8000;
/** The loudest a single sound reaches: half of full scale, so both sides mixed into mono still fit. */
export const SIDE_PEAK = 16_000;

/** Interleaved 16-bit samples being rendered, and which of their channels a sound is added to. */
export interface Track {
  samples: Int16Array;
  channels: 1 | 2;
  channel: 0 | 1;
}

/** The frame (sample per channel) at which `ms` of audio starts. */
export function framesIn(ms: number): number {
  return Math.round((ms * SAMPLE_RATE) / 1000);
}

/** Adds `value` to one frame of the track's channel, saturating at the 16-bit limits. */
export function addAt(track: Track, frame: number, value: number): void {
  const i = frame * track.channels + track.channel;
  const sum = track.samples[i] + value;
  track.samples[i] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum;
}

/** One period of a sine at 1 Hz resolution: sample n of a whole-hertz tone f is SINE[(n * f) % SAMPLE_RATE]. */
const SINE = new Float32Array(SAMPLE_RATE);
for (let i = 0; i < SAMPLE_RATE; i++) SINE[i] = Math.sin((2 * Math.PI * i) / SAMPLE_RATE);

/**
 * Adds a sine of `hz` (rounded to a whole hertz) and peak `amplitude` to frames [from, to), its phase counted from
 * the sound's start at frame `at`, so a window cut anywhere in a tone continues it exactly.
 */
export function addSine(track: Track, at: number, from: number, to: number, hz: number, amplitude: number): void {
  const step = ((Math.round(hz) % SAMPLE_RATE) + SAMPLE_RATE) % SAMPLE_RATE;
  let phase = ((from - at) * step) % SAMPLE_RATE;
  const { samples, channels } = track;
  for (let i = from * channels + track.channel; i < to * channels; i += channels) {
    const sum = samples[i] + SINE[phase] * amplitude;
    samples[i] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum;
    phase += step;
    if (phase >= SAMPLE_RATE) phase -= SAMPLE_RATE;
  }
}
