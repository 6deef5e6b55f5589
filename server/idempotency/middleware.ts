// Idempotency-Key for every operation whose spec declares the header: the first successful response is kept
// for 24 hours and replayed (Idempotent-Replayed: true) for the same key and body; another body is a 409.
// The key is claimed first (a concurrent duplicate answers 409 idempotency_key_in_use); the response is recorded
// by the service in the transaction of its work (see ResponseRecorder), so no crash leaves work without it.
import { createHash } from 'node:crypto';
import type { Handler, HandlerTable } from '../http/operation.js';
import { loadSpec, type OperationId } from '../http/spec.js';
import { errors } from '../errors.js';
import { claim, complete, recordResponse, release, type Scope } from './store.js';
import type { ResponseRecorder } from './recorder.js';

const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** The operationIds whose spec lists an Idempotency-Key header parameter. */
export function idempotentOperations(): Set<OperationId> {
  return new Set(successStatuses().keys());
}

/** The operations that take Idempotency-Key, each with the status of its success response (their one 2xx). */
function successStatuses(): Map<OperationId, number> {
  const doc = loadSpec().document;
  const resolve = (node: any): any =>
    node?.$ref
      ? node.$ref
          .replace(/^#\//, '')
          .split('/')
          .reduce((acc: any, part: string) => acc?.[part], doc)
      : node;
  const found = new Map<OperationId, number>();
  for (const op of loadSpec().operations) {
    const item = doc.paths[op.path];
    const params = [...(item.parameters ?? []), ...(item[op.method].parameters ?? [])].map(resolve);
    if (
      params.some((p: any) => p?.in === 'header' && String(p.name).toLowerCase() === IDEMPOTENCY_HEADER.toLowerCase())
    ) {
      const success = Object.keys(item[op.method].responses ?? {}).filter((code) => /^2\d\d$/.test(code));
      found.set(op.operationId, success.length === 1 ? Number(success[0]) : NaN);
    }
  }
  return found;
}

/** A stable digest of what the request asks for: path parameters and body, keys sorted, either encoding alike. */
function requestHash(params: unknown, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ params, body })).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function idempotent<O extends OperationId>(operationId: O, status: number, handler: Handler<O>): Handler<O> {
  return async (input) => {
    const key = input.req.get(IDEMPOTENCY_HEADER);
    if (!key) return handler(input);
    const { store, clock, config } = input.services;
    const scope: Scope = { accountSid: input.account.sid, operationId, key };
    const hash = requestHash(input.params, input.body);
    const claimed = await claim(store.db, scope, hash, clock.now(), config.idempotencyLeaseMs);
    switch (claimed.kind) {
      case 'reused':
        throw errors.idempotencyKeyReused();
      case 'in_use':
        throw errors.idempotencyKeyInUse();
      case 'replay':
        return { status: claimed.status, body: claimed.body, headers: { 'Idempotent-Replayed': 'true' } } as any;
    }
    // The body the work's transaction recorded, once that transaction committed.
    let recorded: { body: unknown } | undefined;
    const recorder: ResponseRecorder = {
      async record(tx, body) {
        await recordResponse(tx.db, scope, claimed.lease, status, body);
        tx.afterCommit(() => (recorded = { body }));
      },
    };
    let reply;
    try {
      reply = await handler(Number.isNaN(status) ? input : { ...input, recorder });
    } catch (err) {
      await release(store.db, scope, claimed.lease).catch(() => undefined);
      throw err;
    }
    if (config.nodeEnv === 'test' && config.testFailAfterWork !== 'off') failAfterWork(config.testFailAfterWork);
    const success = reply.status >= 200 && reply.status < 300;
    // A reply whose work recorded it is complete already; any other (no transaction of its own) is recorded now.
    // Either is a no-op once another request took the key over (this one outlived its lease): that one's claim and
    // record stand.
    if (success && (!recorded || recorded.body !== reply.body || reply.status !== status)) {
      if (!(await complete(store.db, scope, claimed.lease, reply.status, reply.body)))
        input.services.logger.warn({ operationId }, 'idempotency key taken over: this response was not recorded');
    } else if (!success) await release(store.db, scope, claimed.lease);
    return reply;
  };
}

/** Tests only: the request dies once its work has committed, before it answers (see TEST_FAIL_AFTER_WORK). */
function failAfterWork(how: 'throw' | 'exit'): void {
  if (how === 'exit') process.kill(process.pid, 'SIGKILL');
  throw new Error('TEST_FAIL_AFTER_WORK: the request failed after its work committed');
}

/** Wraps the handlers of every operation that declares Idempotency-Key; others pass through untouched. */
export function withIdempotency(table: HandlerTable): HandlerTable {
  const wrapped: HandlerTable = { ...table };
  for (const [operationId, status] of successStatuses()) {
    const handler = table[operationId];
    if (handler)
      (wrapped as any)[operationId] = idempotent(operationId, status, handler as Handler<typeof operationId>);
  }
  return wrapped;
}
