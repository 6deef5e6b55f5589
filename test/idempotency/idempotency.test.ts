// Idempotency-Key on every creating POST whose spec declares it: replay within 24 h, 409 on another body.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { idempotentOperations } from '../../server/idempotency/middleware.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber, giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { TestClock } from '../support/clock.js';

describe('which operations take Idempotency-Key', () => {
  it('covers every creating POST that declares the header in the spec', () => {
    expect([...idempotentOperations()].sort()).toEqual(
      [
        'createAddress',
        'createProxySession',
        'injectInboundCall',
        'injectInboundMessage',
        'makeCall',
        'provisionPhoneNumber',
        'sendMessage',
        'sendVerification',
      ].sort(),
    );
  });
});

describe.each(ENGINES)('Idempotency-Key (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: FAST_PIPELINE, contract: true, clock });
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const send = (client: TestAccount['client'], key: string, body: Record<string, unknown>) =>
    client.POST('/v1/messages', { body: body as any, params: { header: { 'Idempotency-Key': key } } });
  const count = async (a: TestAccount) =>
    (await a.client.GET('/v1/messages', { params: { query: { page_size: 1000 } } })).data!.data.length;
  const direct = (a: TestAccount) => createTelephonyClient({ baseUrl: t.directUrl, apiKey: a.apiKey });

  it('replays the first response (Idempotent-Replayed: true) for the same key and body, creating nothing', async () => {
    const key = crypto.randomUUID();
    const body = { from, to: '+14155550123', body: 'once' };
    const first = await send(account.client, key, body);
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    const before = await count(account);
    const again = await send(account.client, key, body);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    expect(await count(account)).toBe(before);
    expect(t.violations()).toEqual([]);
  });

  it('treats the same fields sent as a form like the same body', async () => {
    const key = crypto.randomUUID();
    const body = { from, to: '+14155550123', body: 'both encodings', validity_period: 60 };
    const first = await send(account.client, key, body);
    const form = createTelephonyClient({ baseUrl: t.url, apiKey: account.apiKey, encoding: 'form' });
    const again = await send(form, key, body);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data!.sid).toBe(first.data!.sid);
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const key = crypto.randomUUID();
    await send(account.client, key, { from, to: '+14155550123', body: 'first' });
    const before = await count(account);
    const { error, response } = await send(direct(account), key, { from, to: '+14155550123', body: 'second' });
    expect(response.status).toBe(409);
    expect(error).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await count(account)).toBe(before);
  });

  it('scopes keys to the account and to the endpoint', async () => {
    const key = crypto.randomUUID();
    const other = await t.newAccount();
    const otherFrom = await giveNumber(t, other);
    const mine = await send(account.client, key, { from, to: '+14155550123', body: 'scoped' });
    const theirs = await send(other.client, key, { from: otherFrom, to: '+14155550123', body: 'scoped' });
    expect(theirs.response.status).toBe(201);
    expect(theirs.response.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.data!.sid).not.toBe(mine.data!.sid);
    const injected = await account.client.POST('/v1/sandbox/inbound-messages', {
      body: { from: '+14155550123', to: from, body: 'scoped' },
      params: { header: { 'Idempotency-Key': key } },
    });
    expect(injected.response.status).toBe(201);
    expect(injected.response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not keep a failed request, so the same key works once the problem is fixed', async () => {
    const fresh = await t.newAccount();
    const key = crypto.randomUUID();
    const body = { from: '+14155550100', to: '+14155550123', body: 'retry me' };
    const failed = await send(direct(fresh), key, body);
    expect(failed.response.status).toBe(422);
    const number = await giveNumber(t, fresh);
    const retried = await send(fresh.client, key, { ...body, from: number });
    expect(retried.response.status).toBe(201);
    expect(retried.response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('creates once when the same key and body race', async () => {
    const fresh = await t.newAccount();
    const number = await giveNumber(t, fresh);
    const key = crypto.randomUUID();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => send(direct(fresh), key, { from: number, to: '+14155550123', body: 'race' })),
    );
    const statuses = results.map((r) => r.response.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    for (const r of results.filter((r) => r.response.status === 409))
      expect(r.error).toMatchObject({ code: 'idempotency_key_in_use' });
    expect(new Set(results.filter((r) => r.data).map((r) => r.data!.sid)).size).toBe(1);
    expect(await count(fresh)).toBe(1);
  });

  it('replays a key for 24 hours, and forgets it after', async () => {
    const key = crypto.randomUUID();
    const body = { from, to: '+14155550123', body: 'a day later' };
    const first = await send(account.client, key, body);
    clock.advance(23 * 3600_000);
    const replayed = await send(account.client, key, body);
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.data!.sid).toBe(first.data!.sid);
    clock.advance(2 * 3600_000);
    const later = await send(account.client, key, body);
    // Failed in a loaded CI run (2026-11-27) with 409 idempotency_key_in_use: the retention job removed the day-old
    // record between the claim's read and its take-over (fixed in the store; claim-race.test.ts pins that window).
    expect(later.response.status, JSON.stringify(later.error)).toBe(201);
    expect(later.response.headers.get('idempotent-replayed')).toBeNull();
    expect(later.data!.sid).not.toBe(first.data!.sid);
  });

  it('applies to the other creating POSTs too (provisioning a number)', async () => {
    const fresh = await t.newAccount();
    const { data } = await fresh.client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 1 } },
    });
    const key = crypto.randomUUID();
    const provision = () =>
      fresh.client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: data!.data[0].phone_number },
        params: { header: { 'Idempotency-Key': key } },
      });
    const first = await provision();
    expect(first.response.status).toBe(201);
    const again = await provision();
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
  });

  it('answers 400 naming Idempotency-Key when it is longer than 255 characters', async () => {
    const { error, response } = await send(direct(account), 'k'.repeat(256), { from, to: '+14155550123', body: 'x' });
    expect(response.status).toBe(400);
    expect(error!.errors!.map((e) => e.field.toLowerCase())).toEqual(['idempotency-key']);
  });
});
