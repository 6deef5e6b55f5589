// No crash window: the first response to an Idempotency-Key is recorded in the transaction of the work it answers.
// A request made to fail once its work has committed (TEST_FAIL_AFTER_WORK, honoured only with NODE_ENV=test) is
// retried with the same key: the retry replays the response the work recorded and creates nothing twice.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createTelephonyClient, type TelephonyClient } from '../../client/index.js';
import { ENGINES, useTestServer, type TestAccount } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { killableServer, useCleanups } from '../support/killable.js';

type Client = TelephonyClient;
const keyed = (key: string) => ({ params: { header: { 'Idempotency-Key': key } } });

interface Case {
  operation: string;
  /** The request, made with the Idempotency-Key `key`. */
  send(client: Client, key: string): Promise<{ data?: any; error?: any; response: Response }>;
  /** How many resources the operation created for the account so far. */
  count(client: Client, account: TestAccount): Promise<number>;
}

const list = async (client: Client, direction?: string) =>
  (await client.GET('/v1/messages', { params: { query: { page_size: 1000 } } })).data!.data.filter(
    (m) => direction === undefined || m.direction === direction,
  ).length;

describe.each(ENGINES)('an idempotent request failing after its work committed (%s)', (engine) => {
  const t = useTestServer({ engine, env: { TEST_FAIL_AFTER_WORK: 'throw' } });
  /** The number the test's account holds, and one still available. */
  let number: string;
  let available: string;

  const cases: Case[] = [
    {
      operation: 'sendMessage',
      send: (client, key) =>
        client.POST('/v1/messages', { body: { from: number, to: '+14155550123', body: 'once' }, ...keyed(key) }),
      count: (client) => list(client, 'outbound-api'),
    },
    {
      operation: 'injectInboundMessage',
      send: (client, key) =>
        client.POST('/v1/sandbox/inbound-messages', {
          body: { from: '+14155550123', to: number, body: 'once' },
          ...keyed(key),
        }),
      count: (client) => list(client, 'inbound'),
    },
    {
      operation: 'provisionPhoneNumber',
      send: (client, key) =>
        client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: available }, ...keyed(key) }),
      count: async (client) =>
        (await client.GET('/v1/incoming-phone-numbers', { params: { query: { page_size: 1000 } } })).data!.data.length,
    },
    {
      operation: 'createAddress',
      send: (client, key) =>
        client.POST('/v1/addresses', {
          body: {
            customer_name: 'Example Ltd',
            street: '1 Main Street',
            city: 'Springfield',
            region: 'IL',
            postal_code: '62701',
            iso_country: 'US',
          },
          ...keyed(key),
        }),
      count: async (client) =>
        (await client.GET('/v1/addresses', { params: { query: { page_size: 1000 } } })).data!.data.length,
    },
    {
      operation: 'sendVerification',
      send: (client, key) =>
        client.POST('/v1/verify/send', { body: { to: '+14155550177', channel: 'sms' }, ...keyed(key) }),
      // A re-send keeps the verification's sid, so count the sends themselves.
      count: async (_client, account) =>
        (
          await t.server.services.store.db
            .selectFrom('verification_sends')
            .select('verification_sid')
            .where('account_sid', '=', account.sid)
            .execute()
        ).length,
    },
  ];

  it.each(cases)('$operation: the retry replays the recorded response and creates nothing twice', async (c) => {
    const account = await t.newAccount();
    number = await giveNumber(t, account);
    const client = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
    const { data: search } = await client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 1 } },
    });
    available = search!.data[0].phone_number;
    const before = await c.count(client, account);
    const key = crypto.randomUUID();

    const failed = await c.send(client, key);
    expect(failed.response.status).toBe(500);
    expect(failed.error).toMatchObject({ code: 'internal_error' });
    expect(await c.count(client, account)).toBe(before + 1);

    const retried = await c.send(client, key);
    expect(retried.response.status).toBe(201);
    expect(retried.response.headers.get('idempotent-replayed')).toBe('true');
    expect(await c.count(client, account)).toBe(before + 1);
    expect(retried.data.sid).toMatch(/^[A-Z]{2}[0-9a-f]{32}$/);
  });
});

const API_KEY = 'tk_idempotency_crash_key_0123456789';

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe.each(ENGINES)('a server killed right after the work of an idempotent request committed (%s)', (engine) => {
  const cleanups = useCleanups();

  it('replays the message the killed request created, and sends it once', { timeout: 120_000 }, async () => {
    const server = await killableServer(engine, API_KEY, {}, cleanups);
    const first = await server.start({ TEST_FAIL_AFTER_WORK: 'exit' });
    const { client } = server;
    const { data: found } = await client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 1 } },
    });
    const from = (
      await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: found!.data[0].phone_number } })
    ).data!.phone_number;
    const key = crypto.randomUUID();
    const send = () =>
      client.POST('/v1/messages', { body: { from, to: '+14155550123', body: 'exactly once' }, ...keyed(key) });

    await expect(send()).rejects.toThrow();
    await exited(first);
    // tsx reports its child's death by SIGKILL as exit code 137.
    expect(first.signalCode ?? first.exitCode).not.toBe(0);

    await server.start();
    const retried = await send();
    expect(retried.response.status).toBe(201);
    expect(retried.response.headers.get('idempotent-replayed')).toBe('true');
    const { data: all } = await client.GET('/v1/messages', { params: { query: { page_size: 1000 } } });
    expect(all!.data.map((m) => m.sid)).toEqual([retried.data!.sid]);
  });
});
