// Prometheus metrics of one server instance: request counts and latency by operation.
import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { findOperation } from '../http/spec.js';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
