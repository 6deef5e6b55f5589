// Renders a window of a call's timeline into a WAV file: 8 kHz 16-bit PCM, mono (both sides mixed) or dual
// (channel 1 the platform, channel 2 the party), exactly as long as the window, silence where nothing sounds.
import { drawDtmf } from './dtmf.js';
import { SAMPLE_RATE, type Track, framesIn } from './pcm.js';
import { drawSpeech } from './speech.js';
import type { Segment, Sound } from './timeline.js';
import { BEEP_HZ, drawRingback, drawTone } from './tones.js';
import { endianness } from 'node:os';

const HEADER_BYTES = 44;
const BYTES_PER_SAMPLE = 2;

/** The size of the WAV file of `ms` of audio: known before rendering, to bound what is stored. */
export function wavBytes(ms: number, channels: 1 | 2): number {
  return HEADER_BYTES + framesIn(ms) * channels * BYTES_PER_SAMPLE;
}

/** How long a WAV file renderWav made lasts (ms), from its 44-byte header: byte rate and data size. */
export function wavDurationMs(wav: Buffer): number {
  const byteRate = wav.readUInt32LE(28);
  const dataBytes = wav.readUInt32LE(40);
  return (dataBytes * 1000) / byteRate;
}

/** The WAV file of call time [fromMs, toMs): each segment at `atMs - fromMs`, cut to the window. */
export function renderWav(segments: Segment[], fromMs: number, toMs: number, channels: 1 | 2): Buffer {
  if (!(toMs >= fromMs)) throw new RangeError(`renderWav: window [${fromMs}, ${toMs}) ends before it starts`);
  const wav = Buffer.alloc(wavBytes(toMs - fromMs, channels));
  writeHeader(wav, channels);
  // Buffer.alloc is zero-filled and not pooled, so its samples start 2-byte aligned and are written in place.
  const samples = new Int16Array(wav.buffer, wav.byteOffset + HEADER_BYTES, (wav.length - HEADER_BYTES) / 2);
  const frames = samples.length / channels;
  const origin = framesIn(fromMs);
  for (const segment of segments) {
    const at = framesIn(segment.atMs) - origin;
    const from = Math.max(0, at);
    const to = Math.min(frames, at + framesIn(segment.ms));
    if (from >= to || segment.sound.kind === 'silence') continue;
    const channel = channels === 2 && segment.side === 'party' ? 1 : 0;
    draw(segment.sound, { samples, channels, channel }, at, from, to);
  }
  if (BIG_ENDIAN) wav.subarray(HEADER_BYTES).swap16(); // WAV samples are little endian
  return wav;
}

const BIG_ENDIAN = endianness() === 'BE';

function draw(sound: Sound, track: Track, at: number, from: number, to: number): void {
  switch (sound.kind) {
    case 'silence':
      return;
    case 'speech':
      return drawSpeech(track, at, from, to, sound.text);
    case 'tone':
      return drawTone(track, at, from, to, sound.hz);
    case 'beep':
      return drawTone(track, at, from, to, BEEP_HZ);
    case 'dtmf':
      return drawDtmf(track, at, from, to, sound.digits);
    case 'ringback':
      return drawRingback(track, at, from, to);
  }
}

/** The canonical 44-byte RIFF/WAVE header of 16-bit PCM at SAMPLE_RATE. */
function writeHeader(wav: Buffer, channels: 1 | 2): void {
  const dataBytes = wav.length - HEADER_BYTES;
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(wav.length - 8, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(channels, 22);
  wav.writeUInt32LE(SAMPLE_RATE, 24);
  wav.writeUInt32LE(SAMPLE_RATE * channels * BYTES_PER_SAMPLE, 28); // byte rate
  wav.writeUInt16LE(channels * BYTES_PER_SAMPLE, 32); // block align
  wav.writeUInt16LE(BYTES_PER_SAMPLE * 8, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
}
