// POST /v1/calls/{sid} through the Prism contract proxy: ending a call not answered yet, new instructions, and
// 409 call_not_modifiable for a call that has ended. (What the change does on a live call is the engine's test.)
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { insertCall, CALLS_NEVER_ANSWERED } from '../support/calls.js';
import { waitForStatusOf } from '../support/wait.js';

describe.each(ENGINES)('modifying calls (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true, env: CALLS_NEVER_ANSWERED });
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const queuedCall = async () =>
    (await account.client.POST('/v1/calls', { body: { from, to: '+14155550123', url: 'https://app.example.com/v' } }))
      .data!;
  // Rings for ten minutes (the sandbox's no-answer number): a call not answered yet that stays so for the test.
  const ringingCall = async () => {
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to: '+15005550007', url: 'https://app.example.com/v', timeout: 600 },
    });
    const read = async () =>
      (await account.client.GET('/v1/calls/{sid}', { params: { path: { sid: data!.sid } } })).data;
    return waitForStatusOf(read, 'ringing', 10_000, 'the call ringing');
  };
  const update = (sid: string, body: Record<string, string>) =>
    account.client.POST('/v1/calls/{sid}', { params: { path: { sid } }, body });

  it.each(['canceled', 'completed'] as const)('cancels a queued call asked %s', async (status) => {
    const call = await queuedCall();
    const { data, response } = await update(call.sid, { status });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ sid: call.sid, status: 'canceled', duration: 0, end_time: expect.any(String) });
    const fetched = await account.client.GET('/v1/calls/{sid}', { params: { path: { sid: call.sid } } });
    expect(fetched.data).toEqual(data);
    expect(t.violations()).toEqual([]);
  });

  it('answers 409 call_not_modifiable for a call that has ended, and changes nothing', async () => {
    const call = await queuedCall();
    const ended = (await update(call.sid, { status: 'canceled' })).data!;
    const bodies: Record<string, string>[] = [
      { status: 'completed' },
      { status: 'canceled' },
      { twiml: '<Response/>' },
    ];
    for (const body of bodies) {
      const { error, response } = await update(call.sid, body);
      expect([response.status, error?.code]).toEqual([409, 'call_not_modifiable']);
    }
    expect((await account.client.GET('/v1/calls/{sid}', { params: { path: { sid: call.sid } } })).data).toEqual(ended);
    expect(t.violations()).toEqual([]);
  });

  it('ends a call asked by 20 requests at once: one answers 200, the others 409 call_not_modifiable', async () => {
    const call = await ringingCall();
    // Straight to the server, all at once (the contract proxy would pass them on one at a time).
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
    const end = () =>
      direct.POST('/v1/calls/{sid}', { params: { path: { sid: call.sid } }, body: { status: 'canceled' } });
    const answers = await Promise.all(Array.from({ length: 20 }, end));
    const statuses = answers.map(({ response, error }) => `${response.status} ${error?.code ?? ''}`.trim());
    expect(statuses.sort()).toEqual(['200', ...Array<string>(19).fill('409 call_not_modifiable')]);
    const ended = answers.find(({ response }) => response.status === 200)!.data;
    expect(ended).toMatchObject({ sid: call.sid, status: 'canceled' });
    expect((await account.client.GET('/v1/calls/{sid}', { params: { path: { sid: call.sid } } })).data).toEqual(ended);
  });

  it.each(['completed', 'busy', 'no-answer', 'failed'] as const)(
    'answers 409 call_not_modifiable for a %s call',
    async (status) => {
      const call = await insertCall(t, account.sid, { status });
      const { error, response } = await update(call.sid, { url: 'https://app.example.com/next' });
      expect([response.status, error?.code]).toEqual([409, 'call_not_modifiable']);
    },
  );

  it('gives a call not answered yet new instructions by URL (POST when no method) or inline', async () => {
    const call = await ringingCall();
    const byUrl = await update(call.sid, { url: 'https://app.example.com/next' });
    expect(byUrl.response.status).toBe(200);
    expect(byUrl.data).toMatchObject({ status: 'ringing', url: 'https://app.example.com/next', method: 'POST' });
    const withGet = await update(call.sid, { url: 'https://app.example.com/get', method: 'GET' });
    expect(withGet.data).toMatchObject({ url: 'https://app.example.com/get', method: 'GET' });
    const inline = await update(call.sid, { twiml: '<Response><Hangup/></Response>' });
    expect(inline.response.status).toBe(200);
    const row = await t.server.services.store.db
      .selectFrom('calls')
      .select(['twiml', 'status'])
      .where('sid', '=', call.sid)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ twiml: '<Response><Hangup/></Response>', status: 'ringing' });
    expect(t.violations()).toEqual([]);
  });

  it('answers 400 url_not_allowed for new instructions at a private address', async () => {
    const call = await queuedCall();
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
    const { error, response } = await direct.POST('/v1/calls/{sid}', {
      params: { path: { sid: call.sid } },
      body: { url: 'http://192.168.1.10/voice' },
    });
    expect(response.status).toBe(400);
    expect(error).toMatchObject({ code: 'url_not_allowed', errors: [{ field: 'url' }] });
  });

  it('answers 404 not_found for another account’s call, and leaves it as it was', async () => {
    const call = await ringingCall();
    const other = await t.newAccount();
    const { error, response } = await other.client.POST('/v1/calls/{sid}', {
      params: { path: { sid: call.sid } },
      body: { status: 'canceled' },
    });
    expect([response.status, error?.code]).toEqual([404, 'not_found']);
    expect((await account.client.GET('/v1/calls/{sid}', { params: { path: { sid: call.sid } } })).data).toEqual(call);
    expect(t.violations()).toEqual([]);
  });

  it('takes a form body', async () => {
    const call = await queuedCall();
    const form = createTelephonyClient({ baseUrl: t.url, apiKey: account.apiKey, encoding: 'form' });
    const { data } = await form.POST('/v1/calls/{sid}', {
      params: { path: { sid: call.sid } },
      body: { status: 'completed' },
    });
    expect(data).toMatchObject({ status: 'canceled' });
    expect(t.violations()).toEqual([]);
  });
});
