// POST /v1/calls through the Prism contract proxy: the queued call with every field, both encodings, the events
// selected, the number check, the URL policy and Idempotency-Key.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { CALLS_NEVER_ANSWERED } from '../support/calls.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';

describe.each(ENGINES)('making calls (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true, env: CALLS_NEVER_ANSWERED });
  // The status events of the calls made here go somewhere on loopback.
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const storedEvents = async (sid: string) =>
    (
      await t.server.services.store.db
        .selectFrom('calls')
        .select('status_callback_events')
        .where('sid', '=', sid)
        .executeTakeFirstOrThrow()
    ).status_callback_events;

  it('answers 201 with a queued call carrying every documented field', async () => {
    const before = Date.now();
    const { data, response } = await account.client.POST('/v1/calls', {
      body: {
        from,
        to: '+14155550123',
        url: 'https://app.example.com/voice',
        method: 'GET',
        status_callback: receiver.url,
        timeout: 30,
      },
    });
    expect(response.status).toBe(201);
    expect(data).toEqual({
      sid: expect.stringMatching(/^CA[0-9a-f]{32}$/),
      account_sid: account.sid,
      from,
      to: '+14155550123',
      status: 'queued',
      direction: 'outbound-api',
      parent_call_sid: null,
      answered_by: null,
      url: 'https://app.example.com/voice',
      method: 'GET',
      status_callback: receiver.url,
      duration: null,
      start_time: null,
      end_time: null,
      price: null,
      price_unit: 'USD',
      error_code: null,
      error_message: null,
      date_created: expect.any(String),
      date_updated: data!.date_created,
    });
    expect(Date.parse(data!.date_created)).toBeGreaterThanOrEqual(before - 1000);
    expect(t.violations()).toEqual([]);
  });

  it('stores the spec defaults and inline twiml, with url and method null', async () => {
    const twiml = '<Response><Say>Hello</Say></Response>';
    const { data } = await account.client.POST('/v1/calls', { body: { from, to: '+14155550123', twiml } });
    expect(data).toMatchObject({ url: null, method: null, status: 'queued' });
    const row = await t.server.services.store.db
      .selectFrom('calls')
      .selectAll()
      .where('sid', '=', data!.sid)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      twiml,
      purpose: 'api',
      machine: null,
      record: 0,
      recording_channels: 1,
      timeout: 60,
      time_limit: 14400,
      status_callback_events: null,
    });
    expect(t.violations()).toEqual([]);
  });

  it('takes a form body, with status_callback_event as repeated keys', async () => {
    const form = createTelephonyClient({ baseUrl: t.url, apiKey: account.apiKey, encoding: 'form' });
    const { data, response } = await form.POST('/v1/calls', {
      body: {
        from,
        to: '+14155550123',
        url: 'https://app.example.com/voice',
        record: true,
        recording_channels: 'dual',
        timeout: 15,
        status_callback_event: ['initiated', 'completed'],
      },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ from, method: 'POST', status: 'queued' });
    expect(await storedEvents(data!.sid)).toBe('initiated completed');
    expect(t.violations()).toEqual([]);
  });

  it('takes status_callback_event space-separated in one form field, as Twilio sends it', async () => {
    const res = await fetch(`${t.directUrl}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        from,
        to: '+14155550123',
        twiml: '<Response><Hangup/></Response>',
        status_callback_event: 'ringing answered',
      }).toString(),
    });
    expect(res.status).toBe(201);
    expect(await storedEvents(((await res.json()) as any).sid)).toBe('ringing answered');
  });

  it('takes status_callback_event as a JSON array, keeping each value once', async () => {
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', twiml: '<Response/>', status_callback_event: ['answered', 'answered'] },
    });
    expect(await storedEvents(data!.sid)).toBe('answered');
  });

  it('answers 422 from_number_not_owned when from is not a number of the account', async () => {
    const other = await t.newAccount();
    const { error, response } = await other.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', url: 'https://app.example.com/voice' },
    });
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ code: 'from_number_not_owned' });
    expect((await other.client.GET('/v1/calls')).data!.data).toEqual([]);
    expect(t.violations()).toEqual([]);
  });

  it.each(['url', 'status_callback', 'recording_status_callback'])(
    'answers 400 url_not_allowed naming %s when it points at a private address',
    async (field) => {
      const body = { from, to: '+14155550123', url: 'https://app.example.com/voice', [field]: 'http://10.0.0.7/x' };
      const res = await fetch(`${t.directUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      const problem: any = await res.json();
      expect(problem.code).toBe('url_not_allowed');
      expect(problem.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    },
  );

  it('replays the first answer for the same Idempotency-Key and body, placing one call', async () => {
    const key = crypto.randomUUID();
    const body = { from, to: '+14155550177', url: 'https://app.example.com/once' };
    const params = { header: { 'Idempotency-Key': key } };
    const first = await account.client.POST('/v1/calls', { body, params });
    const again = await account.client.POST('/v1/calls', { body, params });
    expect(first.response.status).toBe(201);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    const list = await account.client.GET('/v1/calls', { params: { query: { to: '+14155550177' } } });
    expect(list.data!.data.map((c) => c.sid)).toEqual([first.data!.sid]);
    expect(t.violations()).toEqual([]);
  });
});
