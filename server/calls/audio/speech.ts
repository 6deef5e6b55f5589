// Synthetic speech standing for a text: each character, one slice of speechMs(text), is a phone (phones.ts) the
// formant voice (voice.ts) glides to, at a pitch falling over the sentence. It is deterministic (same text, same
// samples) and never a steady pair of pure tones, so it cannot pass for DTMF.
import { speechMs } from './durations.js';
import { SIDE_PEAK, type Track, addAt, framesIn } from './pcm.js';
import { SILENT, phoneOf } from './phones.js';
import { Voice } from './voice.js';

/** Resonator coefficients are recomputed every block of frames as the formants glide (2 ms). */
const BLOCK = 16;

/** FNV-1a: seeds the hiss, so the same text always hisses the same. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * Adds the speech of `text` starting at frame `at` to frames [from, to); a segment longer than the text repeats it
 * (a looping Say).
 */
export function drawSpeech(track: Track, at: number, from: number, to: number, text: string): void {
  const pcm = utterance(text);
  let i = (from - at) % pcm.length;
  for (let frame = from; frame < to; frame++) {
    addAt(track, frame, pcm[i]);
    if (++i === pcm.length) i = 0;
  }
}

/** Recently spoken texts (a prompt every call plays is synthesized once), up to 4 MiB of samples. */
const spoken = new Map<string, Int16Array>();
const CACHE_FRAMES = 1 << 21;
let cachedFrames = 0;

function utterance(text: string): Int16Array {
  const hit = spoken.get(text);
  if (hit) {
    spoken.delete(text);
    spoken.set(text, hit);
    return hit;
  }
  const pcm = synthesize(text);
  if (pcm.length > CACHE_FRAMES / 8) return pcm;
  for (const [oldest, samples] of spoken) {
    if (cachedFrames + pcm.length <= CACHE_FRAMES) break;
    spoken.delete(oldest);
    cachedFrames -= samples.length;
  }
  spoken.set(text, pcm);
  cachedFrames += pcm.length;
  return pcm;
}

/** Renders `text` as speechMs(text) of 16-bit samples at SIDE_PEAK * 0.8 at its loudest. */
function synthesize(text: string): Int16Array {
  const chars = [...text.trim()];
  const phones = chars.map((char) => phoneOf(char) ?? SILENT);
  const frames = framesIn(speechMs(text));
  const out = new Float32Array(frames);
  const perChar = frames / Math.max(1, chars.length);
  const voice = new Voice(hashOf(text));
  let pitch = 120;
  // Block by block (not one loop over every frame): V8 optimizes a small function called often better than a
  // long loop it must replace on the stack, measured 3x faster.
  for (let n = 0; n < frames; n += BLOCK) {
    const index = Math.min(chars.length - 1, Math.floor(n / perChar));
    const phone = index >= 0 ? phones[index] : SILENT;
    // Intonation: a falling line over the text, each voiced letter a little above or below it.
    if (phone.voice > 0) pitch = 100 + 35 * (1 - n / frames) + ((chars[index].charCodeAt(0) * 7) % 13);
    voice.glideTo(phone, pitch);
    voice.fill(out, n, Math.min(frames, n + BLOCK));
  }
  return toPcm(out);
}

function toPcm(out: Float32Array): Int16Array {
  let peak = 0;
  for (let n = 0; n < out.length; n++) peak = Math.max(peak, Math.abs(out[n]));
  const scale = peak > 0 ? (SIDE_PEAK * 0.8) / peak : 0;
  const pcm = new Int16Array(out.length);
  for (let n = 0; n < out.length; n++) pcm[n] = out[n] * scale; // truncated: 15% faster than Math.round
  return pcm;
}
