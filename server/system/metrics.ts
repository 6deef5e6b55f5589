// Prometheus metrics of one server instance (documented in docs/metrics.md): request counts and latency by
// operation; what the domain counts as it happens (webhook attempts, rate-limit refusals, claim latency); and gauges
// of the database it serves, read at each scrape (messages, calls and verifications by status, the job queue, the
// webhook events pending and given up). Labels are bounded sets named in code: never sids, numbers or accounts.
import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { findOperation } from '../http/spec.js';
import type { Store } from '../store/db.js';
import { deadJobsByKind } from '../jobs/queue.js';
import { deadEventsByType } from '../webhooks/queue.js';
import {
  callsByStatus,
  failedEventsByType,
  liveJobsByKind,
  messagesByStatus,
  pendingEvents,
  verificationsByStatus,
  type LiveJobs,
} from './metric-counts.js';

/** How a recorded webhook attempt ended: delivered, failed with another attempt to come, or failed for good. */
type WebhookAttemptResult = 'delivered' | 'retrying' | 'given_up';

/** The durable queues whose claims are timed. */
type QueueName = 'jobs' | 'webhooks';

/** What the domain counts where it happens. Each series is bound once here, so counting allocates nothing. */
export interface Counters {
  webhookAttempt: (result: WebhookAttemptResult) => void;
  rateLimitRefused: () => void;
  /** What records how long one claim of `queue` took (seconds). */
  claimTimer: (queue: QueueName) => (seconds: number) => void;
  /** A group of job transactions ended (PostgreSQL: see store/transaction-group.ts), committed or not. */
  jobGroup: (committed: boolean) => void;
}

export interface Metrics {
  registry: Registry;
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  counters: Counters;
}

export function createMetrics(store: Store): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  databaseGauges(registry, store);
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by operation and status.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by operation.',
    labelNames: ['operation'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });

  function middleware(req: Request, res: Response, next: NextFunction): void {
    const end = latency.startTimer();
    res.on('finish', () => {
      // Label by operationId, never by raw path, so sids do not explode the series count.
      // The validator has already matched the operation for most requests; match it here only for the rest.
      // A HEAD is its GET's operation (app.ts serves it so), also when refused before it is.
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const operation =
        (req as any).openapi?.schema?.operationId ?? findOperation(method, req.path)?.operationId ?? 'unmatched';
      end({ operation });
      requests.inc({ operation, status: String(res.statusCode) });
    });
    next();
  }

  return { registry, middleware, counters: domainCounters(registry) };
}

function domainCounters(registry: Registry): Counters {
  const attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts recorded by this instance, by result (delivered, retrying, given_up).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const byResult: Record<WebhookAttemptResult, Counter.Internal> = {
    delivered: attempts.labels('delivered'),
    retrying: attempts.labels('retrying'),
    given_up: attempts.labels('given_up'),
  };
  const refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests this instance refused with 429 rate_limited (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST).',
    registers: [registry],
  });
  const claims = new Histogram({
    name: 'queue_claim_duration_seconds',
    help: 'How long one claim of due work took (the claiming query), by queue (jobs, webhooks).',
    labelNames: ['queue'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const byQueue: Record<QueueName, Histogram.Internal<'queue'>> = {
    jobs: claims.labels('jobs'),
    webhooks: claims.labels('webhooks'),
  };
  const groups = new Counter({
    name: 'job_groups_total',
    help:
      'PostgreSQL: groups of job transactions run as one by this instance, by outcome (committed; failed, after ' +
      'which each of its jobs ran alone).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const byOutcome = { committed: groups.labels('committed'), failed: groups.labels('failed') };
  return {
    webhookAttempt: (result) => byResult[result].inc(),
    jobGroup: (committed) => byOutcome[committed ? 'committed' : 'failed'].inc(),
    rateLimitRefused: () => refusals.inc(),
    claimTimer: (queue) => {
      const series = byQueue[queue];
      return (seconds) => series.observe(seconds);
    },
  };
}

/**
 * Gauges read from the database at each scrape, never on a request's path: every instance on one database shows the
 * same values, and they survive restarts.
 */
function databaseGauges(registry: Registry, store: Store): void {
  const gauge = <L extends string>(name: string, help: string, labelNames: L[], collect: (g: Gauge<L>) => unknown) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        await collect(this);
      },
    });
  gauge('messages', 'Messages in the database, by status and direction.', ['status', 'direction'], async (g) => {
    for (const { status, direction, count } of await messagesByStatus(store.db))
      g.set({ status, direction }, Number(count));
  });
  gauge('calls', 'Calls in the database (child legs included), by status.', ['status'], async (g) => {
    for (const { status, count } of await callsByStatus(store.db)) g.set({ status }, Number(count));
  });
  gauge(
    'verifications',
    'Verifications in the database, by status (pending, or how they ended).',
    ['status'],
    async (g) => {
      for (const { status, count } of await verificationsByStatus(store.db)) g.set({ status }, Number(count));
    },
  );

  // The three job gauges read one query, run once per scrape (the registry collects every metric at once).
  const liveJobs = oncePerScrape(() => liveJobsByKind(store.db, new Date(store.clock.now()).toISOString()));
  gauge('jobs_queued', 'Background jobs not done yet (scheduled, due or running), by kind.', ['kind'], async (g) => {
    for (const job of await liveJobs()) g.set({ kind: job.kind }, job.queued);
  });
  gauge(
    'jobs_due',
    'Background jobs whose time has come (waiting for a worker, or running), by kind.',
    ['kind'],
    async (g) => {
      for (const job of await liveJobs()) g.set({ kind: job.kind }, job.due);
    },
  );
  gauge(
    'jobs_oldest_due_age_seconds',
    'How long ago the earliest due job of each kind became due (0 when none is due): how far behind the queue is.',
    ['kind'],
    async (g) => {
      const now = store.clock.now();
      for (const job of await liveJobs()) g.set({ kind: job.kind }, ageSeconds(job, now));
    },
  );
  gauge(
    'jobs_dead',
    'Background jobs given up (out of attempts, or claimed JOB_MAX_CLAIMS times without finishing), by kind.',
    ['kind'],
    async (g) => {
      for (const { kind, count } of await deadJobsByKind(store.db)) g.set({ kind }, count);
    },
  );

  const pending = oncePerScrape(() => pendingEvents(store.db));
  gauge('webhook_events_pending', 'Webhook events waiting for their next attempt, or in one.', [], async (g) => {
    g.set((await pending()).count);
  });
  gauge(
    'webhook_events_pending_oldest_age_seconds',
    'How long ago the earliest pending webhook event became due (0 when none is due).',
    [],
    async (g) => {
      const { earliest } = await pending();
      g.set(earliest === null ? 0 : Math.max(0, (store.clock.now() - Date.parse(earliest)) / 1000));
    },
  );
  gauge(
    'webhook_events_failed',
    'Webhook events given up after their last attempt failed (WEBHOOK_MAX_ATTEMPTS, or a permanent failure), by type.',
    ['type'],
    async (g) => {
      for (const { type, count } of await failedEventsByType(store.db)) g.set({ type }, Number(count));
    },
  );
  gauge(
    'webhook_events_dead',
    'Webhook events given up after JOB_MAX_CLAIMS claims without an attempt ever ending, by type.',
    ['type'],
    async (g) => {
      for (const { type, count } of await deadEventsByType(store.db)) g.set({ type }, count);
    },
  );
}

function ageSeconds(job: LiveJobs, now: number): number {
  return job.oldestDue === null ? 0 : Math.max(0, (now - Date.parse(job.oldestDue)) / 1000);
}

/** Shares one read among the gauges collected together: callers while it runs get its answer, later ones read anew. */
function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  return () =>
    (running ??= read().finally(() => {
      running = null;
    }));
}
