// Runs due jobs: claims a batch (see claim-loop.ts), runs each through the handler of its kind, finishes or retries it.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { QueueSignal, Store, Tx } from '../store/db.js';
import { claimJobs, continueJobIn, finishJob, finishJobIn, holdJob, releaseJobs, retryJob, type Job } from './queue.js';
import { ClaimLoop, claimedTooOften, type ClaimLoopOptions } from './claim-loop.js';
import type { JobHandling, JobType } from './job.js';
import { dateIn } from '../clock.js';
import { GroupFailed, type GroupMember } from '../store/transaction-group.js';

/** A claimed job, with its share of the claim's group of transactions when it has one. */
interface Claimed {
  job: Job;
  member?: GroupMember;
}

export interface JobContext {
  store: Store;
  /**
   * The job's transaction. For a job of a grouped kind (JobOptions.grouped) claimed with others of such kinds on
   * PostgreSQL, it is shared with theirs and commits with them; when that group fails, the handler is run again
   * alone. Otherwise, and for a second call, `store.transaction`.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Finish the job inside the handler's own transaction, so its effect and its completion commit together. */
  finishIn(tx: Tx): Promise<void>;
  /**
   * Instead of finishing, keep the job for a next step: a job of `type` (its own, or other work) with `payload` at
   * `runAt`, in the handler's transaction: one update of its row instead of a delete and an insert (multi-step work
   * such as a message's dispatch and then the sandbox's reports).
   */
  continueIn<P>(tx: Tx, type: JobType<P>, payload: NoInfer<P>, runAt: Date): Promise<void>;
  /**
   * Holds the job for another JOB_LEASE_MS from now, in `tx`, and throws when its lease was lost (another instance
   * took it for dead and runs it): work that may wait longer than a lease between its transactions (an SMSC's
   * answer) holds the job again before it writes, and meanwhile.
   */
  holdIn(tx: Tx): Promise<void>;
  /** JOB_LEASE_MS: how long a claim holds the job. */
  readonly leaseMs: number;
}

/** Thrown by a handler to be tried again after a chosen delay rather than the default backoff. */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
  }
}

export type WorkerOptions = Omit<ClaimLoopOptions, 'name' | 'wake'> & {
  leaseMs?: number;
  workerId?: string;
  /** JOB_MAX_CLAIMS: claims without an outcome before a job is marked dead (see Claim). */
  maxClaims?: number;
  /** Told how each group of job transactions ended (PostgreSQL), for /metrics. */
  onGroup?: (committed: boolean) => void;
};

/** Runs the jobs table: the claim loop over due jobs, each through the handler of its kind. */
export class JobWorker {
  readonly workerId: string;
  private readonly leaseMs: number;
  private readonly loop: ClaimLoop<Claimed>;
  private readonly handlers = new Map<string, JobHandling>();

  constructor(
    private readonly store: Store,
    jobs: readonly JobHandling[],
    private readonly logger: Logger,
    options: WorkerOptions,
  ) {
    for (const job of jobs) {
      if (this.handlers.has(job.kind)) throw new Error(`two handlers for job kind "${job.kind}"`);
      this.handlers.set(job.kind, job);
    }
    this.workerId = options.workerId ?? `w-${randomBytes(6).toString('hex')}`;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.maxClaims = options.maxClaims;
    this.onGroup = options.onGroup;
    this.loop = new ClaimLoop<Claimed>(
      async (limit) => this.inGroups(await this.claim(limit)),
      (claimed) => this.runOne(claimed),
      logger,
      { ...options, name: 'job worker', wake: { emitter: store.signals, event: 'jobs' satisfies QueueSignal } },
    );
  }

  private readonly maxClaims: number | undefined;
  private readonly onGroup: WorkerOptions['onGroup'];

  private async claim(limit: number): Promise<Job[]> {
    const claimed = await claimJobs(this.store.db, this.store.dialect, {
      workerId: this.workerId,
      limit,
      leaseMs: this.leaseMs,
      now: this.store.clock.now(),
      maxClaims: this.maxClaims,
    });
    const live = claimed.filter((job) => !job.dead);
    if (live.length === claimed.length) return claimed;
    // Marked dead by this very claim, so logged once, by this instance only.
    for (const job of claimed.filter((j) => j.dead))
      this.logger.error({ jobId: job.id, kind: job.kind, reason: claimedTooOften(job.claims) }, 'job dead');
    return live;
  }

  /**
   * The jobs of one claim, those of grouped kinds on their first attempt in a group of transactions when there are
   * several (PostgreSQL).
   * A group failure is logged once here; its members run again alone.
   */
  private inGroups(jobs: Job[]): Claimed[] {
    // A job tried before runs alone: one that fails every time would otherwise fail every group it is claimed into,
    // and the group's other jobs would run twice each time.
    const groupable = (job: Job) => job.attempts === 1 && this.handlers.get(job.kind)?.grouped === true;
    const grouped = jobs.filter(groupable);
    const group = grouped.length > 1 ? this.store.transactionGroup(grouped.length) : null;
    if (!group) return jobs.map((job) => ({ job }));
    void group.outcome.then((outcome) => {
      this.onGroup?.(outcome.committed);
      if (!outcome.committed)
        this.logger.info({ err: outcome.cause, jobs: grouped.length }, 'job group did not commit; its jobs run alone');
    });
    const members = group.members();
    return jobs.map((job) => ({ job, member: groupable(job) ? members.pop() : undefined }));
  }

  /** Jobs running at once at most (the window). */
  get maxRunning(): number {
    return this.loop.maxRunning;
  }

  start(): void {
    this.loop.start();
  }

  /**
   * Stops claiming, and waits for the jobs already running to end, for `withinMs` at most; the jobs still held then
   * are released, due again at once for any instance (rather than after their lease).
   */
  async stop(withinMs = Infinity): Promise<void> {
    if (!(await this.stopWithin(withinMs))) await this.releaseHeld();
  }

  /** Stops claiming, and waits for the jobs already running to end for `withinMs` at most: false if some still run. */
  stopWithin(withinMs: number): Promise<boolean> {
    return this.loop.stopWithin(withinMs);
  }

  /** Gives back the jobs this worker still holds, due again at once for any instance. */
  async releaseHeld(): Promise<void> {
    const released = await releaseJobs(this.store.db, this.workerId);
    if (released) this.logger.warn({ released }, 'job worker: released the jobs still running at shutdown');
  }

  /** Runs a claimed job: in its group first, if it has one, and alone when the group did not commit. */
  private async runOne({ job, member }: Claimed): Promise<void> {
    if (member) {
      try {
        return await this.runIn(job, member);
      } catch (err) {
        if (!(err instanceof GroupFailed)) throw err;
      }
    }
    return this.runIn(job, undefined);
  }

  private async runIn(job: Job, member: GroupMember | undefined): Promise<void> {
    const handler = this.handlers.get(job.kind);
    let finished = false;
    const ctx: JobContext = {
      store: this.store,
      transaction: member ? (fn) => member.transaction(fn) : (fn) => this.store.transaction(fn),
      finishIn: async (tx) => {
        finished = true;
        if (!(await finishJobIn(tx, this.store.dialect, job, this.workerId)))
          throw new Error(`job ${job.id} lease lost`);
      },
      continueIn: async (tx, type, payload, runAt) => {
        finished = true;
        if (!(await continueJobIn(tx, this.store.dialect, job, this.workerId, payload, runAt, type.kind)))
          throw new Error(`job ${job.id} lease lost`);
        if (runAt.getTime() <= tx.clock.now()) tx.afterCommit(() => tx.signals.emit('jobs' satisfies QueueSignal));
      },
      holdIn: async (tx) => {
        if (!(await holdJob(tx.db, job, this.workerId, this.leaseMs))) throw new Error(`job ${job.id} lease lost`);
      },
      leaseMs: this.leaseMs,
    };
    try {
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`);
      try {
        await handler.run(job, ctx);
      } finally {
        member?.done();
      }
      if (!finished) await finishJob(this.store.db, job, this.workerId);
    } catch (err) {
      // Nothing of it was written: its caller runs it again alone.
      if (err instanceof GroupFailed) throw err;
      const delay = err instanceof RetryLater ? err.delayMs : backoffMs(job.attempts);
      this.logger.warn({ err, jobId: job.id, kind: job.kind, attempt: job.attempts }, 'job failed; retrying later');
      const error = String((err as Error)?.message ?? err);
      await retryJob(this.store.db, job, this.workerId, error, dateIn(this.store.clock, delay)).catch((e) =>
        this.logger.error({ err: e, jobId: job.id }, 'job worker: could not record the failure'),
      );
    }
  }
}

/** Exponential backoff with full jitter: up to 1 s, 2 s, 4 s ... capped at 10 minutes. */
function backoffMs(attempt: number): number {
  const cap = Math.min(600_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + (Math.random() * cap) / 2);
}
