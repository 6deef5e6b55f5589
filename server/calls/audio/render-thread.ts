// The recordings' renderer thread (see renderer.ts): renders each WAV asked and answers it, its bytes moved, not
// copied, when the file has a buffer of its own.
import { parentPort } from 'node:worker_threads';
import { renderWav } from './render.js';
import type { RenderRequest, RenderAnswer } from './renderer.js';

const port = parentPort!;
port.on('message', ({ seq, segments, fromMs, toMs, channels }: RenderRequest) => {
  let wav: Buffer;
  try {
    wav = renderWav(segments, fromMs, toMs, channels);
  } catch (err) {
    port.postMessage({ seq, error: err instanceof Error ? err.message : String(err) } satisfies RenderAnswer);
    return;
  }
  const own = wav.byteOffset === 0 && wav.byteLength === wav.buffer.byteLength;
  const answer = { seq, wav: new Uint8Array(wav.buffer, wav.byteOffset, wav.byteLength) } satisfies RenderAnswer;
  port.postMessage(answer, own ? [wav.buffer as ArrayBuffer] : []);
});
