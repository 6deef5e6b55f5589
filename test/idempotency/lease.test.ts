// A claim on an Idempotency-Key is identified by its lease: a request that outlived its lease (its server stalled)
// and saw the key taken over can no longer end or complete the claim. Its late release must not free the key for a
// third request while the second still runs, and its late completion must not overwrite the second's record.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { claim, complete, recordResponse, release, type Scope } from '../../server/idempotency/store.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { FAST_PIPELINE } from '../support/messaging.js';

const HASH = 'request-hash';
/** The first request's lease: short, so that it passes at once and the key can be taken over. */
const SHORT_LEASE_MS = 1;
const LEASE_MS = 60_000;

describe.each(ENGINES)('an Idempotency-Key claim that outlived its lease (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  const db = () => t.server.services.store.db;
  const now = () => t.server.services.clock.now();
  const scopeOf = (operationId: string): Scope => ({
    accountSid: t.account.sid,
    operationId,
    key: crypto.randomUUID(),
  });
  /** Request A claims the key, stalls past its lease, and request B takes the key over. */
  async function takenOver(scope: Scope) {
    const a = await claim(db(), scope, HASH, now(), SHORT_LEASE_MS);
    if (a.kind !== 'claimed') throw new Error(`A did not claim the key: ${a.kind}`);
    await sleep(SHORT_LEASE_MS + 5); // Leases are real time (see leaseUntil).
    const b = await claim(db(), scope, HASH, now(), LEASE_MS);
    if (b.kind !== 'claimed') throw new Error(`B did not take the key over: ${b.kind}`);
    expect(b.lease).not.toBe(a.lease);
    return { a: a.lease, b: b.lease };
  }

  it('a late release by the first request leaves the second running: a third claim is in_use', async () => {
    const scope = scopeOf('sendMessage');
    const lease = await takenOver(scope);
    await release(db(), scope, lease.a);
    expect(await claim(db(), scope, HASH, now(), LEASE_MS)).toEqual({ kind: 'in_use' });
  });

  it('a late completion or recording by the first request leaves the second claim and its record alone', async () => {
    const scope = scopeOf('sendMessage');
    const lease = await takenOver(scope);
    expect(await complete(db(), scope, lease.a, 201, { sid: 'A' })).toBe(false);
    await expect(
      t.server.services.store.transaction((tx) => recordResponse(tx.db, scope, lease.a, 201, { sid: 'A' })),
    ).rejects.toThrow('the claim was taken over');
    expect(await claim(db(), scope, HASH, now(), LEASE_MS)).toEqual({ kind: 'in_use' });

    expect(await complete(db(), scope, lease.b, 201, { sid: 'B' })).toBe(true);
    expect(await complete(db(), scope, lease.a, 201, { sid: 'A' })).toBe(false);
    await release(db(), scope, lease.a);
    expect(await claim(db(), scope, HASH, now(), LEASE_MS)).toEqual({
      kind: 'replay',
      status: 201,
      body: { sid: 'B' },
    });
  });

  it('a retry after both replays the response of the request that took over, and one message exists', async () => {
    const { account, from } = await accountWithNumber(t);
    const count = async () =>
      (await account.client.GET('/v1/messages', { params: { query: { page_size: 1000 } } })).data!.data.length;
    const before = await count();
    const key = crypto.randomUUID();
    const send = () =>
      account.client.POST('/v1/messages', {
        body: { from, to: '+14155550123', body: 'once' },
        params: { header: { 'Idempotency-Key': key } },
      });
    const scope: Scope = { accountSid: account.sid, operationId: 'sendMessage', key };

    // A: a request whose server claimed the key, then stalled past its lease.
    const a = await claim(db(), scope, HASH, now(), SHORT_LEASE_MS);
    if (a.kind !== 'claimed') throw new Error(`A did not claim the key: ${a.kind}`);
    await sleep(SHORT_LEASE_MS + 5);
    // B takes the key over and sends the message.
    const b = await send();
    expect(b.response.status).toBe(201);
    expect(b.response.headers.get('idempotent-replayed')).toBeNull();
    // A wakes up: its completion and its release come too late and change nothing.
    expect(await complete(db(), scope, a.lease, 201, { sid: 'A' })).toBe(false);
    await release(db(), scope, a.lease);

    const retried = await send();
    expect(retried.response.status).toBe(201);
    expect(retried.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.data).toEqual(b.data);
    expect(await count()).toBe(before + 1);
  });
});
