// STAND-IN: replaced by part B at merge. Renders silence of the right length with a correct WAV header.
import type { Segment } from './timeline.js';

const RATE = 8000;

export function wavBytes(ms: number, channels: 1 | 2): number {
  return 44 + Math.round((ms * RATE) / 1000) * 2 * channels;
}

export function renderWav(_segments: Segment[], fromMs: number, toMs: number, channels: 1 | 2): Buffer {
  const data = wavBytes(toMs - fromMs, channels) - 44;
  const wav = Buffer.alloc(44 + data);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(channels, 22);
  wav.writeUInt32LE(RATE, 24);
  wav.writeUInt32LE(RATE * 2 * channels, 28);
  wav.writeUInt16LE(2 * channels, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(data, 40);
  return wav;
}
