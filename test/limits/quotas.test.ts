// Quotas on what one account holds at once: numbers (MAX_NUMBERS_PER_ACCOUNT) and queued messages
// (MAX_QUEUED_MESSAGES), exact even when the requests come at once.
import { describe, expect, it } from 'vitest';
import type { TelephonyClient } from '../../client/index.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { searchLocal } from '../numbers/fixtures.js';

const QUOTA = 3;
const ENV = { MAX_NUMBERS_PER_ACCOUNT: String(QUOTA), MAX_QUEUED_MESSAGES: String(QUOTA) };

const provision = (client: TelephonyClient, phoneNumber: string) =>
  client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } });

async function heldCount(client: TelephonyClient): Promise<number> {
  const { data } = await client.GET('/v1/incoming-phone-numbers', { params: { query: { page_size: 100 } } });
  return data!.data.length;
}

describe.each(ENGINES)('the quota of numbers per account (%s)', (engine) => {
  const t = useTestServer({ engine, env: ENV, contract: true });

  it('answers 422 number_quota_exceeded for one number beyond the quota, and does not provision it', async () => {
    const offered = (await searchLocal(t.account.client, 'US', { page_size: QUOTA + 1 })).map((n) => n.phone_number);
    for (const phoneNumber of offered.slice(0, QUOTA)) {
      expect((await provision(t.account.client, phoneNumber)).response.status).toBe(201);
    }
    const { response, error } = await provision(t.account.client, offered[QUOTA]);
    expect(response.status).toBe(422);
    expect(error).toMatchObject({
      status: 422,
      code: 'number_quota_exceeded',
      type: '/problems/number_quota_exceeded',
    });
    expect(await heldCount(t.account.client)).toBe(QUOTA);
    // Nobody holds the refused number: another account gets it.
    const other = await t.newAccount('other');
    expect((await provision(other.client, offered[QUOTA])).response.status).toBe(201);
  });

  it('provisions exactly the quota of eight numbers asked for at once', async () => {
    const offered = (await searchLocal(t.account.client, 'US', { page_size: 8 })).map((n) => n.phone_number);
    const results = await Promise.all(offered.map((phoneNumber) => provision(t.account.client, phoneNumber)));
    const statuses = results.map((r) => r.response.status).sort();
    expect(statuses).toEqual([201, 201, 201, 422, 422, 422, 422, 422]);
    expect(await heldCount(t.account.client)).toBe(QUOTA);
  });

  it('takes a number again once one is released', async () => {
    const offered = (await searchLocal(t.account.client, 'US', { page_size: QUOTA + 1 })).map((n) => n.phone_number);
    const held = [];
    for (const phoneNumber of offered.slice(0, QUOTA))
      held.push((await provision(t.account.client, phoneNumber)).data!);
    expect((await provision(t.account.client, offered[QUOTA])).response.status).toBe(422);
    const release = await t.account.client.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: held[0].sid } },
    });
    expect(release.response.status).toBe(204);
    expect((await provision(t.account.client, offered[QUOTA])).response.status).toBe(201);
  });
});

describe.each(ENGINES)('the quota of queued messages per account (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, ...ENV }, contract: true });
  // Scheduled an hour ahead, a message stays queued for the whole test.
  const later = () => new Date(Date.now() + 3_600_000).toISOString();
  const send = (client: TelephonyClient, from: string) =>
    client.POST('/v1/messages', { body: { from, to: '+14155550123', body: 'hello', send_at: later() } });

  async function queuedCount(client: TelephonyClient): Promise<number> {
    const { data } = await client.GET('/v1/messages', { params: { query: { status: 'queued', page_size: 100 } } });
    return data!.data.length;
  }

  it('answers 422 message_queue_full for one message beyond the quota, and does not create it', async () => {
    const from = await giveNumber(t, t.account);
    for (let i = 0; i < QUOTA; i++) expect((await send(t.account.client, from)).response.status).toBe(201);
    const { response, error } = await send(t.account.client, from);
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ status: 422, code: 'message_queue_full', type: '/problems/message_queue_full' });
    const { data } = await t.account.client.GET('/v1/messages', { params: { query: { page_size: 100 } } });
    expect(data!.data.length).toBe(QUOTA);
  });

  it('queues exactly the quota of eight messages sent at once', async () => {
    const from = await giveNumber(t, t.account);
    const results = await Promise.all(Array.from({ length: 8 }, () => send(t.account.client, from)));
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 201, 201, 422, 422, 422, 422, 422]);
    expect(await queuedCount(t.account.client)).toBe(QUOTA);
  });

  it('queues again once a scheduled message is canceled', async () => {
    const from = await giveNumber(t, t.account);
    const sent = [];
    for (let i = 0; i < QUOTA; i++) sent.push((await send(t.account.client, from)).data!);
    expect((await send(t.account.client, from)).response.status).toBe(422);
    const canceled = await t.account.client.DELETE('/v1/messages/{sid}', { params: { path: { sid: sent[0].sid } } });
    expect(canceled.response.status).toBe(204);
    expect((await send(t.account.client, from)).response.status).toBe(201);
  });

  it('gives the quota back as queued messages leave the queue (sent, then delivered)', async () => {
    const from = await giveNumber(t, t.account);
    const now = (client: TelephonyClient) =>
      client.POST('/v1/messages', { body: { from, to: '+14155550123', body: 'hello' } });
    for (let round = 0; round < 2; round++) {
      const sent = await Promise.all(Array.from({ length: QUOTA }, () => now(t.account.client)));
      expect(sent.map((r) => r.response.status)).toEqual([201, 201, 201]);
      for (const { data } of sent) await waitForStatus(t.account.client, data!.sid, 'delivered');
    }
    expect(await queuedCount(t.account.client)).toBe(0);
  });

  it('writes neither a message nor its job for a send refused (the quota, a number of another account)', async () => {
    const from = await giveNumber(t, t.account);
    for (let i = 0; i < QUOTA; i++) expect((await send(t.account.client, from)).response.status).toBe(201);
    const theirs = await giveNumber(t, await t.newAccount('other'));
    const refused = [await send(t.account.client, from), await send(t.account.client, theirs)];
    expect(refused.map((r) => [r.response.status, r.error?.code])).toEqual([
      [422, 'message_queue_full'],
      [422, 'from_number_not_owned'],
    ]);
    const { db } = t.server.services.store;
    const mine = await db.selectFrom('messages').select('sid').where('account_sid', '=', t.account.sid).execute();
    expect(mine.length).toBe(QUOTA);
    // Every dispatch job has its message (jobs read first: a message is never deleted here, a job may finish).
    const jobs = await db.selectFrom('jobs').select('payload').where('kind', '=', 'message.dispatch').execute();
    const sids = new Set((await db.selectFrom('messages').select('sid').execute()).map((m) => m.sid));
    expect(jobs.map((job) => (JSON.parse(job.payload) as { sid: string }).sid).filter((sid) => !sids.has(sid))).toEqual(
      [],
    );
  });

  it('counts each account on its own', async () => {
    const from = await giveNumber(t, t.account);
    for (let i = 0; i < QUOTA; i++) expect((await send(t.account.client, from)).response.status).toBe(201);
    const other = await t.newAccount('other');
    const otherFrom = await giveNumber(t, other);
    expect((await send(other.client, otherFrom)).response.status).toBe(201);
  });

  it('queues exactly the quota of each of three accounts sending twenty messages each at once', async () => {
    // On PostgreSQL sends that arrive together share a statement (messages/send-batches.ts), several of an account.
    const accounts = [t.account, await t.newAccount('second'), await t.newAccount('third')];
    const numbers = await Promise.all(accounts.map((account) => giveNumber(t, account)));
    const sent = await Promise.all(
      accounts.flatMap((account, i) => Array.from({ length: 20 }, () => send(account.client, numbers[i]))),
    );
    for (let i = 0; i < accounts.length; i++) {
      const answers = sent.slice(i * 20, (i + 1) * 20).map((r) => r.error?.code ?? r.response.status);
      expect(answers.filter((answer) => answer === 201).length).toBe(QUOTA);
      expect(answers.filter((answer) => answer !== 201)).toEqual(Array(20 - QUOTA).fill('message_queue_full'));
      expect(await queuedCount(accounts[i].client)).toBe(QUOTA);
    }
  });
});
