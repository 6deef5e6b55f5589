// A kind of durable job and the payload it carries, declared once: enqueuing it and handling it are both typed by it.
import type { Job } from './queue.js';
import type { JobContext } from './worker.js';

/**
 * A kind of job whose payload is `P`. It is declared at module level, where the code that enqueues it can import it;
 * its handler is bound by the service instance that runs it (`handle`), since handlers close over that instance.
 */
export interface JobType<P> {
  readonly kind: string;
  /** This kind with its handler, for the worker; the handler gets the payload typed as it was enqueued. */
  handle(handler: (job: Job<P>, ctx: JobContext) => Promise<void>): JobHandling;
}

/** A kind of job bound to its handler, as the worker runs it. */
export interface JobHandling {
  readonly kind: string;
  run(job: Job, ctx: JobContext): Promise<void>;
}

export function defineJob<P>(kind: string): JobType<P> {
  return {
    kind,
    // The one place a payload's type is taken on trust: every enqueue of this kind was checked against `P`.
    handle: (handler) => ({ kind, run: (job, ctx) => handler(job as Job<P>, ctx) }),
  };
}
