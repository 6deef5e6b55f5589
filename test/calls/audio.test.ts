// Recordings rendered from a call's timeline: real WAV files whose DTMF decodes back, whose beep is 1 kHz, whose
// speech is never taken for digits, exactly as long as their window, with each side on its own channel when dual.
import { describe, expect, it } from 'vitest';
import { renderWav, wavBytes, wavDurationMs } from '../../server/calls/audio/render.js';
import type { Segment, Side, Sound } from '../../server/calls/audio/timeline.js';
import { BEEP_MS, dtmfMs, speechMs } from '../../server/calls/audio/durations.js';
import { readWav } from '../support/wav.js';
import { decodeDtmf, toneShare } from '../support/goertzel.js';

const RATE = 8000;
const at = (ms: number) => Math.round((ms * RATE) / 1000);
const segment = (atMs: number, ms: number, side: Side, sound: Sound): Segment => ({ atMs, ms, side, sound });
const dtmf = (atMs: number, digits: string, side: Side = 'party') =>
  segment(atMs, dtmfMs(digits), side, { kind: 'dtmf', digits });
const speech = (atMs: number, text: string, side: Side = 'platform') =>
  segment(atMs, speechMs(text), side, { kind: 'speech', text });

/** The samples of [fromMs, toMs) of one channel. */
const slice = (samples: Int16Array, fromMs: number, toMs: number) => samples.subarray(at(fromMs), at(toMs));
const energy = (samples: Int16Array) => samples.reduce((sum, s) => sum + s * s, 0);
/** The largest difference between two runs of samples of the same length. */
function largestDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let largest = 0;
  for (let i = 0; i < a.length; i++) largest = Math.max(largest, Math.abs(a[i] - b[i]));
  return largest;
}

const PHRASES = [
  'Hello, please leave a message after the beep.',
  'Your verification code is 4 8 1 5 1 6. Again: 4 8 1 5 1 6.',
  'Thank you for calling. Press one for sales, two for support, or stay on the line.',
  'The quick brown fox jumps over the lazy dog',
  'aaaa eeee iiii oooo uuuu',
  'Très bien, merci ! ¿Qué tal?',
];

describe('rendered DTMF', () => {
  it('decodes back to 1234# from a mono recording', () => {
    const wav = readWav(renderWav([speech(0, 'Enter your PIN'), dtmf(1500, '1234#')], 0, 3000, 1));
    expect(wav.channels).toBe(1);
    expect(decodeDtmf(wav.samples[0])).toBe('1234#');
  });

  it('decodes back to 1234# from either channel of a dual recording, the other channel holding none', () => {
    for (const [side, channel] of [
      ['platform', 0],
      ['party', 1],
    ] as const) {
      const wav = readWav(renderWav([dtmf(300, '1234#', side)], 0, 1500, 2));
      expect(decodeDtmf(wav.samples[channel])).toBe('1234#');
      expect(decodeDtmf(wav.samples[1 - channel])).toBe('');
    }
  });

  it('decodes every key, and `w` waits half a second between digits', () => {
    const wav = readWav(renderWav([dtmf(0, '0123456789*#ABCD'), dtmf(4000, '1w2')], 0, 5000, 1));
    expect(decodeDtmf(slice(wav.samples[0], 0, 4000))).toBe('0123456789*#ABCD');
    expect(energy(slice(wav.samples[0], 4100, 4600))).toBe(0);
    expect(decodeDtmf(slice(wav.samples[0], 4000, 5000))).toBe('12');
  });

  it('is cut to the window: a recording starting mid-string holds the digits from there on', () => {
    const wav = readWav(renderWav([dtmf(-200, '1234#')], 0, 1000, 1));
    expect(decodeDtmf(wav.samples[0])).toBe('234#');
  });
});

describe('the beep', () => {
  it('is a 1 kHz tone for BEEP_MS, and not a DTMF digit', () => {
    const wav = readWav(renderWav([segment(1000, BEEP_MS, 'platform', { kind: 'beep' })], 0, 2000, 1));
    const beep = slice(wav.samples[0], 1000, 1000 + BEEP_MS);
    for (let start = 0; start + 205 <= beep.length; start += 205) {
      expect(toneShare(beep, start, 205, 1000)).toBeGreaterThan(0.95);
      expect(toneShare(beep, start, 205, 941)).toBeLessThan(0.05);
    }
    expect(energy(slice(wav.samples[0], 0, 1000))).toBe(0);
    expect(energy(slice(wav.samples[0], 1000 + BEEP_MS, 2000))).toBe(0);
    expect(decodeDtmf(wav.samples[0])).toBe('');
  });
});

describe('a tone and ringback', () => {
  it('a tone sounds at its hz', () => {
    const wav = readWav(renderWav([segment(0, 500, 'platform', { kind: 'tone', hz: 440 })], 0, 500, 1));
    expect(toneShare(wav.samples[0], 0, 4000, 440)).toBeGreaterThan(0.95);
  });

  it('ringback is 440 + 480 Hz, two seconds on and four off', () => {
    const wav = readWav(renderWav([segment(-8000, 8000, 'platform', { kind: 'ringback' })], -8000, 0, 1));
    const ring = slice(wav.samples[0], 0, 2000);
    expect(toneShare(ring, 0, ring.length, 440) + toneShare(ring, 0, ring.length, 480)).toBeGreaterThan(0.95);
    expect(energy(slice(wav.samples[0], 2000, 6000))).toBe(0);
    expect(energy(slice(wav.samples[0], 6000, 8000))).toBe(energy(ring));
  });
});

describe('synthetic speech', () => {
  it.each(PHRASES)('decodes to no digits: %s', (text) => {
    const wav = readWav(renderWav([speech(0, text)], 0, speechMs(text), 1));
    expect(energy(wav.samples[0])).toBeGreaterThan(0);
    // At every alignment of the decoder's frames, not only the one starting at sample 0.
    for (let offset = 0; offset < 205; offset += 41) expect(decodeDtmf(wav.samples[0].subarray(offset))).toBe('');
  });

  it('is the same samples for the same text, other samples for another text', () => {
    const render = (text: string) => renderWav([speech(0, text)], 0, 3000, 1);
    expect(render(PHRASES[0]).equals(render(PHRASES[0]))).toBe(true);
    expect(render(PHRASES[0]).equals(render(PHRASES[1]))).toBe(false);
  });

  it('repeats when its segment is longer than the text (a looping Say)', () => {
    const text = 'Welcome';
    const ms = speechMs(text);
    const wav = readWav(renderWav([segment(0, 2 * ms, 'platform', { kind: 'speech', text })], 0, 2 * ms, 1));
    expect(energy(slice(wav.samples[0], 0, ms))).toBeGreaterThan(0);
    expect(largestDifference(slice(wav.samples[0], 0, ms), slice(wav.samples[0], ms, 2 * ms))).toBe(0);
  });

  it('lasts speechMs(text), with a pause at the space between words', () => {
    const text = 'one two';
    const wav = readWav(renderWav([speech(0, text)], 0, speechMs(text) + 500, 1));
    expect(energy(slice(wav.samples[0], 0, speechMs(text)))).toBeGreaterThan(0);
    expect(energy(slice(wav.samples[0], speechMs(text), speechMs(text) + 500))).toBe(0);
    const quiet = (ms: number) => energy(slice(wav.samples[0], ms, ms + 40));
    // The space is the fourth of seven letters (210-280 ms): quieter than the vowels beside it.
    expect(quiet(225)).toBeLessThan(quiet(145) / 10);
    expect(quiet(225)).toBeLessThan(quiet(435) / 10);
  });
});

describe('the WAV file', () => {
  it.each([1, 999, 5000, 60_000])('of %i ms reports that many ms, in its header and its samples', (ms) => {
    const file = renderWav([], 1000, 1000 + ms, 2);
    const wav = readWav(file);
    expect(wavDurationMs(file)).toBe(ms);
    expect(wav.durationMs).toBe(ms);
    expect(file.length).toBe(wavBytes(ms, 2));
    expect(wav.samples[0].length).toBe(at(ms));
  });

  it('is 8 kHz 16-bit PCM with a 44-byte header, mono or dual', () => {
    for (const channels of [1, 2] as const) {
      const file = renderWav([], 0, 100, channels);
      expect({ ...readWav(file), samples: undefined, durationMs: undefined }).toEqual({
        format: 1,
        channels,
        sampleRate: 8000,
        bitsPerSample: 16,
        samples: undefined,
        durationMs: undefined,
      });
      expect(file.length).toBe(44 + 800 * 2 * channels);
    }
  });

  it('holds exactly the window, whatever sounds outside it', () => {
    const segments = [speech(-3000, 'a long greeting before the window'), dtmf(4000, '9999'), dtmf(-500, '5')];
    const wav = readWav(renderWav(segments, 250, 3250, 1));
    expect(wav.durationMs).toBe(3000);
    expect(wav.samples[0].length).toBe(3000 * 8);
  });

  it('is silence, all zero samples, where nothing sounds and for silence segments', () => {
    const segments = [segment(0, 2000, 'platform', { kind: 'silence' }), dtmf(3000, '1')];
    const wav = readWav(renderWav(segments, 0, 4000, 2));
    expect(energy(slice(wav.samples[0], 0, 4000))).toBe(0);
    expect(energy(slice(wav.samples[1], 0, 3000))).toBe(0);
    expect(energy(slice(wav.samples[1], 3000, 3100))).toBeGreaterThan(0);
  });

  it('keeps the sides apart when dual: the platform on channel 1, the party on channel 2', () => {
    const segments = [speech(0, 'Please say your name'), dtmf(500, '42')];
    const dual = readWav(renderWav(segments, 0, 2000, 2));
    const platformOnly = readWav(renderWav([segments[0]], 0, 2000, 1));
    const partyOnly = readWav(renderWav([segments[1]], 0, 2000, 1));
    expect(largestDifference(dual.samples[0], platformOnly.samples[0])).toBe(0);
    expect(largestDifference(dual.samples[1], partyOnly.samples[0])).toBe(0);
  });

  it('mixes both sides into mono with headroom: the sum of the two, never wrapped around', () => {
    const segments = [segment(0, 1000, 'platform', { kind: 'beep' }), dtmf(0, '1111')];
    const dual = readWav(renderWav(segments, 0, 1000, 2));
    const mono = readWav(renderWav(segments, 0, 1000, 1));
    const sums = Array.from(dual.samples[0], (s, i) => s + dual.samples[1][i]);
    // Each sound is added unrounded, so a mono sample may differ from the channels' sum by under 1 per sound.
    expect(largestDifference(mono.samples[0], sums)).toBeLessThanOrEqual(2);
    expect(Math.max(...sums)).toBeGreaterThan(20_000);
    expect(Math.max(...mono.samples[0])).toBeLessThan(32_767);
  });

  it('saturates rather than wrapping around when sounds on one side overlap', () => {
    const beeps = [0, 0, 0].map(() => segment(0, 100, 'platform', { kind: 'beep' }));
    const mono = readWav(renderWav(beeps, 0, 100, 1)).samples[0];
    const one = readWav(renderWav([beeps[0]], 0, 100, 1)).samples[0];
    expect(Math.max(...mono)).toBe(32767);
    expect(Math.min(...mono)).toBe(-32768);
    for (let i = 0; i < one.length; i++) expect(Math.sign(mono[i])).toBe(Math.sign(one[i]));
  });
});
