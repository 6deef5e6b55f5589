// A kind of durable job and the payload it carries, declared once: enqueuing it and handling it are both typed by it.
import type { Job } from './queue.js';
import type { JobContext } from './worker.js';

/**
 * A kind of job whose payload is `P`. It is declared at module level, where the code that enqueues it can import it;
 * its handler is bound by the service instance that runs it (`handle`), since handlers close over that instance.
 */
export interface JobType<P> {
  readonly kind: string;
  /** See JobOptions. */
  readonly grouped: boolean;
  /** This kind with its handler, for the worker; the handler gets the payload typed as it was enqueued. */
  handle(handler: (job: Job<P>, ctx: JobContext) => Promise<void>): JobHandling;
}

/** A kind of job bound to its handler, as the worker runs it. */
export interface JobHandling {
  readonly kind: string;
  readonly grouped: boolean;
  run(job: Job, ctx: JobContext): Promise<void>;
}

export interface JobOptions {
  /**
   * On PostgreSQL, the jobs of this kind claimed together run their transactions as one (see TransactionGroup):
   * the handler's work is one `ctx.transaction`, with no effect outside it before it ends, since a group that fails
   * runs the handler again alone. It must not wait for anything outside the group either (another transaction, the
   * network): the group holds every member's locks until the last member is done, and a wait on one of them from
   * outside would never end. For the hot steps of the pipeline, which are each a few statements.
   */
  grouped?: boolean;
}

export function defineJob<P>(kind: string, options: JobOptions = {}): JobType<P> {
  const grouped = options.grouped ?? false;
  return {
    kind,
    grouped,
    // The one place a payload's type is taken on trust: every enqueue of this kind was checked against `P`.
    handle: (handler) => ({ kind, grouped, run: (job, ctx) => handler(job as Job<P>, ctx) }),
  };
}
