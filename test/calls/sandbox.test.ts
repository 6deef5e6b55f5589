// The sandbox's call operations through the Prism contract proxy: an inbound call from an outside number, and the
// other end's input (the checks of the API side; what the engine does with them is the engine's test).
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { insertCall, CALLS_NEVER_ANSWERED } from '../support/calls.js';

describe.each(ENGINES)('sandbox calls (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true, env: CALLS_NEVER_ANSWERED });
  let account: TestAccount;
  let number: string;
  beforeAll(async () => ({ account, from: number } = await accountWithNumber(t)));

  const input = (a: TestAccount, sid: string, body: Record<string, string>, baseUrl = t.url) =>
    createTelephonyClient({ baseUrl, apiKey: a.apiKey }).POST('/v1/sandbox/calls/{sid}/input', {
      params: { path: { sid } },
      body,
    });

  it('answers 201 with an inbound ringing call to a number the account holds', async () => {
    await account.client.POST('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: (await numberSid(account, number))! } },
      body: { VoiceUrl: 'https://app.example.com/incoming', VoiceMethod: 'GET' },
    });
    const { data, response } = await account.client.POST('/v1/sandbox/inbound-calls', {
      body: { from: '+14155550123', to: number },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({
      sid: expect.stringMatching(/^CA[0-9a-f]{32}$/),
      account_sid: account.sid,
      from: '+14155550123',
      to: number,
      direction: 'inbound',
      status: 'ringing',
      url: 'https://app.example.com/incoming',
      method: 'GET',
    });
    const listed = await account.client.GET('/v1/calls', { params: { query: { direction: 'inbound' } } });
    expect(listed.data!.data.map((c) => c.sid)).toContain(data!.sid);
    expect(t.violations()).toEqual([]);
  });

  it('answers 422 to_number_not_owned for a number the account does not hold, creating nothing', async () => {
    const other = await t.newAccount();
    const { error, response } = await other.client.POST('/v1/sandbox/inbound-calls', {
      body: { from: '+14155550123', to: number },
    });
    expect([response.status, error?.code]).toEqual([422, 'to_number_not_owned']);
    expect((await other.client.GET('/v1/calls')).data!.data).toEqual([]);
    expect(t.violations()).toEqual([]);
  });

  it('answers 400 naming from for a caller that is a number held on this platform, creating nothing', async () => {
    const other = await accountWithNumber(t);
    const { error, response } = await other.account.client.POST('/v1/sandbox/inbound-calls', {
      body: { from: number, to: other.from },
    });
    expect([response.status, error?.code, error?.errors?.[0].field]).toEqual([400, 'invalid_request', 'from']);
    expect((await other.account.client.GET('/v1/calls')).data!.data).toEqual([]);
    expect(t.violations()).toEqual([]);
  });

  it('replays an inbound call for the same Idempotency-Key, creating one', async () => {
    const params = { header: { 'Idempotency-Key': crypto.randomUUID() } };
    const body = { from: '+14155550166', to: number };
    const first = await account.client.POST('/v1/sandbox/inbound-calls', { body, params });
    const again = await account.client.POST('/v1/sandbox/inbound-calls', { body, params });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    const listed = await account.client.GET('/v1/calls', { params: { query: { from: '+14155550166' } } });
    expect(listed.data!.data).toHaveLength(1);
  });

  it.each([
    ['digits', 'neither digits nor speech', {}],
    ['speech', 'both digits and speech', { digits: '1', speech: 'yes' }],
    ['digits', 'digits that are not DTMF', { digits: '12a' }],
    ['speech', 'empty speech', { speech: '' }],
  ])('input answers 400 naming %s for %s', async (field, _why, body) => {
    const call = await insertCall(t, account.sid, { status: 'in-progress' });
    const { error, response } = await input(account, call.sid, body, t.directUrl);
    expect(response.status).toBe(400);
    expect(error!.errors!.map((e) => e.field)).toContain(field);
  });

  it('input answers 200 with the call for an in-progress call', async () => {
    const call = await insertCall(t, account.sid, { status: 'in-progress', end_time: null, duration: null });
    const { data, response } = await input(account, call.sid, { digits: '1234#' });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ sid: call.sid, status: 'in-progress' });
    expect(t.violations()).toEqual([]);
  });

  it.each(['ringing', 'completed'] as const)('input answers 409 call_not_modifiable for a %s call', async (status) => {
    const call = await insertCall(t, account.sid, { status });
    const { error, response } = await input(account, call.sid, { speech: 'hello' });
    expect([response.status, error?.code]).toEqual([409, 'call_not_modifiable']);
    expect(t.violations()).toEqual([]);
  });

  it('input answers 404 not_found for another account’s call', async () => {
    const call = await insertCall(t, account.sid, { status: 'in-progress' });
    const other = await t.newAccount();
    const { error, response } = await input(other, call.sid, { digits: '1' });
    expect([response.status, error?.code]).toEqual([404, 'not_found']);
  });
});

async function numberSid(account: TestAccount, phoneNumber: string) {
  const { data } = await account.client.GET('/v1/incoming-phone-numbers', {
    params: { query: { phone_number: phoneNumber } },
  });
  return data?.data[0]?.sid;
}
