// An Idempotency-Key record that changes between a claim's read of it and its take-over:
// - removed by the retention job (a day old, expired): the key is claimed anew, not answered 409
//   idempotency_key_in_use for a request that is not running. Seen in CI: the retention job, due once a test's clock
//   passed a day, removed the record in that window, and a request with a day-old key was refused;
// - completed by the stalled request that held it (its lease passed): its answer is replayed, not its work done again;
// - taken over by another request first: in use.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { claim, complete, deleteKeysBefore, RETENTION_MS, type Scope } from '../../server/idempotency/store.js';
import type { Db } from '../../server/store/db.js';
import { ENGINES, useTestServer } from '../support/server.js';

const HASH = 'request-hash';
const LEASE_MS = 60_000;

/**
 * `db` whose first update runs `action` to its end just before it is sent: between the claim's read and its
 * take-over, when the claim holds no connection (SQLite has one, which a Kysely plugin would hold during `action`).
 * Kysely's builders keep private fields, so each of their methods is called on the builder itself.
 */
function beforeFirstUpdate(db: Db, action: () => Promise<unknown>): Db {
  let done = false;
  const builder = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(of, property) {
        const value: unknown = Reflect.get(of, property);
        if (typeof value !== 'function') return value;
        if (property === 'executeTakeFirst')
          return async (...args: unknown[]) => {
            if (!done) {
              done = true;
              await action();
            }
            return value.apply(of, args);
          };
        return (...args: unknown[]) => {
          const next: unknown = value.apply(of, args);
          return typeof next === 'object' && next !== null && 'executeTakeFirst' in next ? builder(next) : next;
        };
      },
    });
  return new Proxy(db, {
    get(of, property) {
      const value: unknown = Reflect.get(of, property);
      if (typeof value !== 'function') return value;
      if (property === 'updateTable') return (...args: unknown[]) => builder(value.apply(of, args) as object);
      return value.bind(of);
    },
  });
}

describe.each(ENGINES)('an Idempotency-Key record that changes under a claim (%s)', (engine) => {
  const t = useTestServer({ engine });
  const store = () => t.server.services.store;
  const now = () => t.server.services.clock.now();
  /** A new key of the account, and its first claim, taken at `at` with `leaseMs`. */
  async function firstClaim(at: number, leaseMs: number) {
    const scope: Scope = { accountSid: t.account.sid, operationId: 'sendMessage', key: crypto.randomUUID() };
    const first = await claim(store().db, scope, HASH, at, leaseMs);
    if (first.kind !== 'claimed') throw new Error(`the first request did not claim the key: ${first.kind}`);
    return { scope, lease: first.lease };
  }

  const removed =
    "claims a day-old key whose record the retention job removes between the claim's read and its take-over";
  it(removed, async () => {
    const { db } = store();
    const at = now();
    const { scope, lease } = await firstClaim(at, LEASE_MS);
    expect(await complete(db, scope, lease, 201, { sid: 'A' })).toBe(true);

    // A day and an hour later: the retention job forgets the records of more than a day ago, once the claim has read
    // the record it would take over.
    const later = at + RETENTION_MS + 3_600_000;
    const purge = () =>
      store().transaction((tx) => deleteKeysBefore(tx.db, new Date(later - RETENTION_MS).toISOString(), undefined));
    const claimed = await claim(beforeFirstUpdate(db, purge), scope, HASH, later, LEASE_MS);
    if (claimed.kind !== 'claimed') throw new Error(`the later request did not claim the key: ${claimed.kind}`);
    // The key is this request's now: another request with it waits for this one, rather than replaying the first.
    expect(await claim(db, scope, HASH, later, LEASE_MS)).toEqual({ kind: 'in_use' });
    // And the claim it was given is the record's: it completes it, and the key replays that.
    expect(await complete(db, scope, claimed.lease, 201, { sid: 'B' })).toBe(true);
    expect(await claim(db, scope, HASH, later, LEASE_MS)).toEqual({ kind: 'replay', status: 201, body: { sid: 'B' } });
  });

  const completed = "replays a stalled request's answer when it completes between the claim's read and its take-over";
  it(completed, async () => {
    const { db } = store();
    // Request A claims the key with a lease that passes at once (leases are real time), and stalls.
    const { scope, lease } = await firstClaim(now(), 1);
    await sleep(5);
    // Request B reads A's record as abandoned; A completes before B's take-over is sent.
    const completeA = async () => expect(await complete(db, scope, lease, 201, { sid: 'A' })).toBe(true);
    const b = await claim(beforeFirstUpdate(db, completeA), scope, HASH, now(), LEASE_MS);
    // B answers A's response rather than doing A's work again.
    expect(b).toEqual({ kind: 'replay', status: 201, body: { sid: 'A' } });
  });

  const takenOver =
    "answers in_use when another request takes a stalled claim over between the claim's read and its own";
  it(takenOver, async () => {
    const { db } = store();
    const { scope } = await firstClaim(now(), 1);
    await sleep(5);
    // Requests B and C both read A's record as abandoned; C takes the key over first, and runs.
    const claimC = async () => expect(await claim(db, scope, HASH, now(), LEASE_MS)).toMatchObject({ kind: 'claimed' });
    expect(await claim(beforeFirstUpdate(db, claimC), scope, HASH, now(), LEASE_MS)).toEqual({ kind: 'in_use' });
  });
});
