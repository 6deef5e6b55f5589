// Renders recordings' WAV files on a thread of its own: a long recording (minutes, two channels) takes the CPU for
// hundreds of milliseconds, which on the main thread would hold every request and job meanwhile. The recording's job
// keeps everything durable: a render the thread never answers (it stopped, the server is closing) fails the job,
// which runs again.
import { HelperThread } from '../../threads.js';
import type { Segment } from './timeline.js';

export interface RenderRequest {
  seq: number;
  segments: Segment[];
  fromMs: number;
  toMs: number;
  channels: 1 | 2;
}

export type RenderAnswer = { seq: number; wav: Uint8Array } | { seq: number; error: string };

export class RecordingRenderer {
  private readonly thread = new HelperThread<RenderAnswer>(
    import.meta.url,
    'render-thread',
    'recording renderer',
    (answer) => {
      const waiter = this.waiting.get(answer.seq);
      this.waiting.delete(answer.seq);
      if ('error' in answer) waiter?.reject(new Error(`rendering the recording failed: ${answer.error}`));
      else waiter?.resolve(Buffer.from(answer.wav.buffer, answer.wav.byteOffset, answer.wav.byteLength));
    },
    (why) => this.failWaiting(why),
  );
  private readonly waiting = new Map<number, { resolve: (wav: Buffer) => void; reject: (err: Error) => void }>();
  private seq = 0;
  private closed = false;

  /** The WAV file of the window [fromMs, toMs) of `segments` (renderWav's, made on the thread). */
  render(segments: Segment[], fromMs: number, toMs: number, channels: 1 | 2): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the recording renderer is closed'));
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.thread.post({ seq, segments, fromMs, toMs, channels } satisfies RenderRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.thread.close();
    this.failWaiting('the recording renderer is closed');
  }

  private failWaiting(why: string): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const { reject } of waiting) reject(new Error(why));
  }
}
