// Idempotency-Key for every operation whose spec declares the header: the first successful response is kept
// for 24 hours and replayed (Idempotent-Replayed: true) for the same key and body; another body is a 409.
import { createHash } from 'node:crypto';
import type { Handler, HandlerTable } from '../http/operation.js';
import { loadSpec, type OperationId } from '../http/spec.js';
import { errors } from '../errors.js';
import { claim, complete, release, type Scope } from './store.js';

const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** The operationIds whose spec lists an Idempotency-Key header parameter. */
export function idempotentOperations(): Set<OperationId> {
  const doc = loadSpec().document;
  const resolve = (node: any): any =>
    node?.$ref
      ? node.$ref
          .replace(/^#\//, '')
          .split('/')
          .reduce((acc: any, part: string) => acc?.[part], doc)
      : node;
  const found = new Set<OperationId>();
  for (const op of loadSpec().operations) {
    const item = doc.paths[op.path];
    const params = [...(item.parameters ?? []), ...(item[op.method].parameters ?? [])].map(resolve);
    if (
      params.some((p: any) => p?.in === 'header' && String(p.name).toLowerCase() === IDEMPOTENCY_HEADER.toLowerCase())
    )
      found.add(op.operationId);
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

function idempotent<O extends OperationId>(operationId: O, handler: Handler<O>): Handler<O> {
  return async (input) => {
    const key = input.req.get(IDEMPOTENCY_HEADER);
    if (!key) return handler(input);
    const db = input.services.store.db;
    const scope: Scope = { accountSid: input.account.sid, operationId, key };
    const claimed = await claim(db, scope, requestHash(input.params, input.body), input.services.clock.now());
    switch (claimed.kind) {
      case 'reused':
        throw errors.idempotencyKeyReused();
      case 'in_use':
        throw errors.idempotencyKeyInUse();
      case 'replay':
        return { status: claimed.status, body: claimed.body, headers: { 'Idempotent-Replayed': 'true' } } as any;
    }
    let reply;
    try {
      reply = await handler(input);
    } catch (err) {
      await release(db, scope).catch(() => undefined);
      throw err;
    }
    if (reply.status >= 200 && reply.status < 300) await complete(db, scope, reply.status, reply.body);
    else await release(db, scope);
    return reply;
  };
}

/** Wraps the handlers of every operation that declares Idempotency-Key; others pass through untouched. */
export function withIdempotency(table: HandlerTable): HandlerTable {
  const wrapped: HandlerTable = { ...table };
  for (const operationId of idempotentOperations()) {
    const handler = table[operationId];
    if (handler) (wrapped as any)[operationId] = idempotent(operationId, handler as Handler<typeof operationId>);
  }
  return wrapped;
}
