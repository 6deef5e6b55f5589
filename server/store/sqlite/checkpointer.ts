// SQLite keeps committed pages in its write-ahead log and copies them back into the database file at a checkpoint.
// By default the connection that commits runs the checkpoint, inside the commit that brings the log to its limit:
// on the thread that serves the API that is a stall of tens of milliseconds every few seconds under a steady write
// load (measured: about 80 ms for the 10,000 pages of our limit), which every request in flight waits out.
//
// The checkpointer moves that copy to a thread of its own, on its own connection. Once the log has grown to
// `startAtBytes`, the thread copies it while the API goes on writing, pass after pass until it has caught up; then
// the writing connection, between two of its transactions, runs a checkpoint of its own, which has only the last
// few pages left to copy. Only a checkpoint that ends with the whole log copied and no transaction open lets the
// next commit start the log over, and only the one writer can see to that (a passive checkpoint from elsewhere
// always finds new pages appended meanwhile). The log is truncated when it starts over, so its size on disk is the
// size of the log. A server that writes little never starts the thread; the writing connection's own checkpoint at
// its limit remains as the backstop.
import fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { startThread } from '../../threads.js';

export interface CheckpointOutcome {
  /** Frames in the log, and how many of them are now in the database file. */
  logFrames: number;
  copiedFrames: number;
  error?: string;
}

export interface CheckpointerOptions {
  /** Runs the closing checkpoint on the writing connection while it has no transaction open. */
  finish: () => Promise<void>;
  /** The log size that starts a round; 16 MB (about 4,000 pages) by default. */
  startAtBytes?: number;
  /** How often the log's size is looked at. */
  intervalMs?: number;
  logger?: Logger;
}

const RESTART_AFTER_MS = 10_000;

export class WalCheckpointer {
  private worker: Worker | null = null;
  private inRound = false;
  /**
   * When the thread last stopped on its own: it is started again only a while later (no restart loop). A real-time
   * backoff, not the domain's time: performance.now().
   */
  private lostAt = -Infinity;
  private readonly timer: NodeJS.Timeout;
  private lastOutcome: CheckpointOutcome | null = null;

  constructor(
    private readonly path: string,
    private readonly options: CheckpointerOptions,
  ) {
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 250);
    this.timer.unref();
  }

  /** What the thread's last pass did, in the last round (for diagnostics and tests). */
  get last(): CheckpointOutcome | null {
    return this.lastOutcome;
  }

  /** Stops the thread; a pass it was running ends with it (the next checkpoint resumes from the log). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const worker = this.worker;
    this.worker = null;
    this.inRound = false;
    await worker?.terminate();
  }

  private tick(): void {
    if (this.inRound || performance.now() - this.lostAt < RESTART_AFTER_MS) return;
    if (logBytes(this.path) < (this.options.startAtBytes ?? 16 << 20)) return;
    this.worker ??= this.start();
    this.inRound = true;
    this.worker.postMessage('catch up');
  }

  private start(): Worker {
    const worker = startThread(import.meta.url, 'checkpoint-thread', {
      name: 'sqlite-checkpoint',
      workerData: { path: this.path },
    });
    // The thread must not keep the process alive on its own; close() ends it.
    worker.unref();
    worker.on('message', (outcome: CheckpointOutcome) => {
      if (this.worker !== worker) return; // closed meanwhile
      this.lastOutcome = outcome;
      if (outcome.error) this.options.logger?.debug({ error: outcome.error }, 'background checkpoint skipped');
      this.options
        .finish()
        .catch((err) => this.options.logger?.warn({ err }, 'closing checkpoint failed'))
        .finally(() => (this.inRound = false));
    });
    const lost = (why: unknown) => {
      if (this.worker !== worker) return;
      // Started again a while later; meanwhile the writing connection's own checkpoints go on.
      this.worker = null;
      this.inRound = false;
      this.lostAt = performance.now();
      this.options.logger?.warn({ why }, 'the checkpoint thread stopped');
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    return worker;
  }
}

function logBytes(dbPath: string): number {
  try {
    return fs.statSync(`${dbPath}-wal`).size;
  } catch {
    return 0;
  }
}
