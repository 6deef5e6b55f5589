// Idempotency records: one per (account, operation, key), claimed before the work and completed with its response.
import type { Db, Tx } from '../store/db.js';
import type { IdempotencyKeyRow } from '../store/schema.js';
import { leaseNow, leaseUntil } from '../clock.js';

export const RETENTION_MS = 24 * 3600 * 1000;

export interface Scope {
  accountSid: string;
  operationId: string;
  key: string;
}

/**
 * A claim taken carries its lease, which identifies it: a take-over writes a later lease (the old one had passed), so
 * every write that ends the claim (recordResponse, complete, release) is made only while the row still holds it.
 */
export type Claim =
  | { kind: 'claimed'; lease: string }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'reused' }
  | { kind: 'in_use' };

function where(scope: Scope) {
  return (qb: any) =>
    qb
      .where('account_sid', '=', scope.accountSid)
      .where('operation_id', '=', scope.operationId)
      .where('idempotency_key', '=', scope.key);
}

/** How many times at most a claim tries (insert, read, take-over) when the key's record changes under it. */
const CLAIM_TRIES = 3;

/**
 * Claims the key at `now` (ms, by the app's clock) for `leaseMs` of real time (see leaseUntil): once the lease has
 * passed, another request may take the key over (this one's server died or stalled mid-request).
 */
export async function claim(db: Db, scope: Scope, requestHash: string, now: number, leaseMs: number): Promise<Claim> {
  const fresh: IdempotencyKeyRow = {
    account_sid: scope.accountSid,
    operation_id: scope.operationId,
    idempotency_key: scope.key,
    request_hash: requestHash,
    state: 'running',
    response_status: null,
    response_body: null,
    locked_until: leaseUntil(leaseMs),
    date_created: new Date(now).toISOString(),
  };
  // The record may change between the read and the write that follows it: removed (the retention job forgets
  // records older than a day, the one this claim was about to take over), completed by the request that held it, or
  // taken over by another request. Each time, the claim starts again from what the record is then; a record that
  // keeps changing is in use.
  for (let tried = 0; tried < CLAIM_TRIES; tried++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values(fresh)
      .onConflict((oc) => oc.columns(['account_sid', 'operation_id', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed', lease: fresh.locked_until };

    const existing = (await where(scope)(db.selectFrom('idempotency_keys').selectAll()).executeTakeFirst()) as
      IdempotencyKeyRow | undefined;
    if (!existing) continue;
    const expired = Date.parse(existing.date_created) + RETENTION_MS < now;
    const abandoned = existing.state === 'running' && existing.locked_until < leaseNow();
    if (expired || abandoned) {
      // Take it over only if nobody changed it since it was read (compare-and-set on the row read). Its state too: a
      // stalled request that completes its claim changes only that, and its response must then be replayed, not its
      // work done again.
      const taken = await where(scope)(db.updateTable('idempotency_keys').set(fresh))
        .where('date_created', '=', existing.date_created)
        .where('locked_until', '=', existing.locked_until)
        .where('state', '=', existing.state)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed', lease: fresh.locked_until };
      continue;
    }
    if (existing.request_hash !== requestHash) return { kind: 'reused' };
    if (existing.state === 'running') return { kind: 'in_use' };
    return {
      kind: 'replay',
      status: Number(existing.response_status),
      body: existing.response_body === null ? undefined : JSON.parse(existing.response_body),
    };
  }
  return { kind: 'in_use' };
}

/**
 * Records the response inside the transaction of the work it answers, so that both commit or neither does. Only the
 * claim taken with `lease` may: when another request took the key over (this one outlived its lease), it throws and
 * the work rolls back.
 */
export async function recordResponse(
  db: Tx['db'],
  scope: Scope,
  lease: string,
  status: number,
  body: unknown,
): Promise<void> {
  if (!(await complete(db, scope, lease, status, body)))
    throw new Error(`idempotency key ${scope.key}: the claim was taken over`);
}

/**
 * Records the response after the work (for a reply no transaction recorded, see recordResponse), if the claim taken
 * with `lease` is still this request's; returns whether it was (a request that outlived its lease leaves the record
 * of the request that took the key over alone).
 */
export async function complete(db: Db, scope: Scope, lease: string, status: number, body: unknown): Promise<boolean> {
  const updated = await where(scope)(
    db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: status, response_body: body === undefined ? null : JSON.stringify(body) }),
  )
    .where('state', '=', 'running')
    .where('locked_until', '=', lease)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * Forgets a claim whose request failed, so the same key can be retried; only the claim taken with `lease`, never the
 * running claim of a request that took the key over.
 */
export async function release(db: Db, scope: Scope, lease: string): Promise<void> {
  await where(scope)(db.deleteFrom('idempotency_keys'))
    .where('state', '=', 'running')
    .where('locked_until', '=', lease)
    .execute();
}

const keysBefore = (db: Db | Tx['db'], before: string) =>
  db.selectFrom('idempotency_keys').select('date_created').where('date_created', '<', before);

/** The creation time of the `n`th oldest record made before `before`: where a chunk of them ends. */
export async function keyCreatedAt(db: Db, before: string, n: number): Promise<string | undefined> {
  return (
    await keysBefore(db, before)
      .orderBy('date_created')
      .limit(1)
      .offset(n - 1)
      .executeTakeFirst()
  )?.date_created;
}

/** Deletes the records made before `before` (and up to `upTo`, when given); returns how many went. */
export async function deleteKeysBefore(db: Tx['db'], before: string, upTo: string | undefined): Promise<bigint> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('date_created', '<', before)
    .$if(upTo !== undefined, (q) => q.where('date_created', '<=', upTo!))
    .executeTakeFirst();
  return result.numDeletedRows;
}
