// Runs due jobs: claims a batch, runs each through the handler of its kind, finishes or retries it.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store, Tx } from '../store/db.js';
import { claimJobs, continueJob, finishJob, jobSignal, retryJob, type Job } from './queue.js';

export interface JobContext {
  store: Store;
  /** Finish the job inside the handler's own transaction, so its effect and its completion commit together. */
  finishIn(tx: Tx): Promise<void>;
  /**
   * Instead of finishing, keep the job for a next step with `payload` at `runAt`, in the handler's transaction:
   * one update of its row instead of a delete and an insert (multi-step work such as the sandbox's reports).
   */
  continueIn(tx: Tx, payload: unknown, runAt: Date): Promise<void>;
}

export type JobHandler = (job: Job<any>, ctx: JobContext) => Promise<void>;

/** Thrown by a handler to be tried again after a chosen delay rather than the default backoff. */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
  }
}

export interface WorkerOptions {
  pollMs: number;
  /** Jobs claimed at a time. */
  batchSize?: number;
  /** Jobs running at once; a new batch is claimed as soon as a batch's worth of room frees up. */
  maxRunning?: number;
  leaseMs?: number;
  workerId?: string;
  /**
   * True while the API is busy answering requests: background jobs then yield to it, waiting `yieldMs` before their
   * next claim, so the work goes on at a bounded rate and catches up once the API is quieter. Found busy at claim
   * after claim (a sustained burst rather than a passing spike), the wait doubles each time up to `maxYieldMs`.
   */
  busy?: () => boolean;
  yieldMs?: number;
  maxYieldMs?: number;
}

export class JobWorker {
  readonly workerId: string;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private pendingWake: NodeJS.Timeout | null = null;
  private readonly batchSize: number;
  /** Jobs running at once at most (the window). */
  readonly maxRunning: number;
  /** The jobs running now: a slow one (a webhook to a receiver that takes its time) holds up none of the others. */
  private readonly inFlight = new Set<Promise<void>>();
  // Coalesce a burst of enqueues (one per request under load) into one claim of a fuller batch.
  private readonly onSignal = () => {
    this.pendingWake ??= setTimeout(() => {
      this.pendingWake = null;
      this.wake?.();
    }, 2);
  };

  constructor(
    private readonly store: Store,
    private readonly handlers: Record<string, JobHandler>,
    private readonly logger: Logger,
    private readonly options: WorkerOptions,
  ) {
    this.workerId = options.workerId ?? `w-${randomBytes(6).toString('hex')}`;
    this.batchSize = options.batchSize ?? 50;
    this.maxRunning = Math.max(this.batchSize, options.maxRunning ?? this.batchSize * 2);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    jobSignal.on('due', this.onSignal);
    this.loop = this.run();
  }

  /** Stops claiming, and waits for the jobs already running to end. */
  async stop(): Promise<void> {
    this.running = false;
    jobSignal.off('due', this.onSignal);
    if (this.pendingWake) clearTimeout(this.pendingWake);
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async run(): Promise<void> {
    let lastClaim = { at: 0, full: true };
    let yieldMs = 0;
    while (this.running) {
      const room = this.maxRunning - this.inFlight.size;
      if (room < this.batchSize) {
        // Full: a finishing job wakes the loop once a batch's worth of room is free.
        await this.sleep(this.options.pollMs * 10);
        continue;
      }
      // A claim costs about as much as running a few jobs: after one that found less than a batch, let the next
      // wait a little (enqueues under load would otherwise wake a claim for every job or two).
      if (!lastClaim.full) await delay(lastClaim.at + MIN_CLAIM_GAP_MS - Date.now());
      if (this.options.busy?.()) {
        const first = this.options.yieldMs ?? 50;
        const most = Math.max(first, this.options.maxYieldMs ?? first);
        yieldMs = yieldMs ? Math.min(yieldMs * 2, most) : first;
        await delay(yieldMs);
      } else yieldMs = 0;
      if (!this.running) break;
      let claimed: Job[] = [];
      try {
        claimed = await claimJobs(this.store.db, this.store.dialect, this.workerId, this.batchSize, this.options.leaseMs ?? 60_000);
      } catch (err) {
        if (!this.running) break;
        this.logger.error({ err }, 'job worker: claiming failed');
      }
      lastClaim = { at: Date.now(), full: claimed.length === this.batchSize };
      for (const job of claimed) {
        const done: Promise<void> = this.runOne(job).finally(() => {
          this.inFlight.delete(done);
          if (this.maxRunning - this.inFlight.size === this.batchSize) this.wake?.();
        });
        this.inFlight.add(done);
      }
      if (!lastClaim.full) await this.sleep(this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async runOne(job: Job): Promise<void> {
    const handler = this.handlers[job.kind];
    let finished = false;
    const ctx: JobContext = {
      store: this.store,
      finishIn: async (tx) => {
        finished = true;
        if (!(await finishJob(tx.db, job, this.workerId))) throw new Error(`job ${job.id} lease lost`);
      },
      continueIn: async (tx, payload, runAt) => {
        finished = true;
        if (!(await continueJob(tx.db, job, this.workerId, payload, runAt))) throw new Error(`job ${job.id} lease lost`);
        if (runAt.getTime() <= Date.now()) tx.afterCommit(() => jobSignal.emit('due'));
      },
    };
    try {
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`);
      await handler(job, ctx);
      if (!finished) await finishJob(this.store.db, job, this.workerId);
    } catch (err) {
      const delay = err instanceof RetryLater ? err.delayMs : backoffMs(job.attempts);
      this.logger.warn({ err, jobId: job.id, kind: job.kind, attempt: job.attempts }, 'job failed; retrying later');
      await retryJob(this.store.db, job, this.workerId, String((err as Error)?.message ?? err), delay).catch((e) =>
        this.logger.error({ err: e, jobId: job.id }, 'job worker: could not record the failure'),
      );
    }
  }
}

const MIN_CLAIM_GAP_MS = 10;

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** Exponential backoff with full jitter: up to 1 s, 2 s, 4 s ... capped at 10 minutes. */
export function backoffMs(attempt: number): number {
  const cap = Math.min(600_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + (Math.random() * cap) / 2);
}
