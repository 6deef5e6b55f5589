// Reads a WAV file back for the tests, chunk by chunk as any player would (not by trusting fixed offsets), so a
// recording's header is checked along with its samples.

export interface Wav {
  /** 1 for PCM. */
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** The samples of each channel, de-interleaved. */
  samples: Int16Array[];
  durationMs: number;
}

/** Parses a 16-bit PCM WAV file; throws naming what is wrong with one that is not. */
export function readWav(file: Buffer): Wav {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  if (file.readUInt32LE(4) !== file.length - 8) throw new Error('the RIFF size is not the file size - 8');
  let fmt: Omit<Wav, 'samples' | 'durationMs'> | undefined;
  for (let offset = 12; offset + 8 <= file.length;) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      fmt = {
        format: file.readUInt16LE(body),
        channels: file.readUInt16LE(body + 2),
        sampleRate: file.readUInt32LE(body + 4),
        bitsPerSample: file.readUInt16LE(body + 14),
      };
      if (file.readUInt16LE(body + 12) !== (fmt.channels * fmt.bitsPerSample) / 8) throw new Error('bad block align');
    } else if (id === 'data') {
      if (!fmt) throw new Error('data chunk before the fmt chunk');
      if (fmt.format !== 1 || fmt.bitsPerSample !== 16) throw new Error('not 16-bit PCM');
      if (body + size > file.length) throw new Error('the data chunk runs past the end of the file');
      return { ...fmt, samples: deinterleave(file, body, size, fmt.channels), durationMs: durationOf(size, fmt) };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('no data chunk');
}

function deinterleave(file: Buffer, start: number, bytes: number, channels: number): Int16Array[] {
  const frames = bytes / 2 / channels;
  const samples = Array.from({ length: channels }, () => new Int16Array(frames));
  for (let frame = 0; frame < frames; frame++) {
    for (let c = 0; c < channels; c++) samples[c][frame] = file.readInt16LE(start + (frame * channels + c) * 2);
  }
  return samples;
}

function durationOf(bytes: number, fmt: { channels: number; sampleRate: number }): number {
  return (bytes / 2 / fmt.channels / fmt.sampleRate) * 1000;
}
