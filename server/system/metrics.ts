// Prometheus metrics of one server instance: request counts and latency by operation, and the dead background work
// of the database it serves (jobs and webhook events given up after JOB_MAX_CLAIMS claims, or their attempts).
import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { findOperation } from '../http/spec.js';
import type { Store } from '../store/db.js';
import { deadJobsByKind } from '../jobs/queue.js';
import { deadEventsByType } from '../webhooks/queue.js';

export function createMetrics(store: Store) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Read from the database at each scrape: every instance shows the same totals, and they survive restarts.
  new Gauge({
    name: 'jobs_dead',
    help: 'Background jobs given up (out of attempts, or claimed JOB_MAX_CLAIMS times without finishing), by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { kind, count } of await deadJobsByKind(store.db)) this.set({ kind }, count);
    },
  });
  new Gauge({
    name: 'webhook_events_dead',
    help: 'Webhook events given up after JOB_MAX_CLAIMS claims without an attempt ever ending, by type.',
    labelNames: ['type'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { type, count } of await deadEventsByType(store.db)) this.set({ type }, count);
    },
  });
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
      const operation =
        (req as any).openapi?.schema?.operationId ?? findOperation(req.method, req.path)?.operationId ?? 'unmatched';
      end({ operation });
      requests.inc({ operation, status: String(res.statusCode) });
    });
    next();
  }

  return { registry, middleware };
}
