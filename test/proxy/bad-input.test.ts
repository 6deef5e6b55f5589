// Bad input to the proxy sessions API: 400 naming the field and nothing stored; another account's session is 404
// on every operation that names one; the open sessions quota.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { createSession, pair, participant, provisionNumber } from '../support/proxy.js';
import { stateOfAccount } from '../support/rows.js';

type Body = Record<string, unknown>;
const valid = () => ({ participants: pair(participant(1), participant(2)) });

// [field named, what is wrong, body]
const BAD: [string, string, (own: string) => Body][] = [
  ['participants', 'missing', () => ({})],
  ['participants', 'one participant', () => ({ participants: [{ identifier: participant(1) }] })],
  [
    'participants',
    'three participants',
    () => ({ participants: [1, 2, 3].map((n) => ({ identifier: participant(n) })) }),
  ],
  ['participants', 'both identifiers equal', () => ({ participants: pair(participant(1), participant(1)) })],
  ['participants[0].identifier', 'not E.164', () => ({ participants: pair('4155550101', participant(2)) })],
  ['participants[1].identifier', 'missing', () => ({ participants: [{ identifier: participant(1) }, {}] })],
  [
    'participants[1].identifier',
    'one of the account’s own numbers',
    (own) => ({ participants: pair(participant(1), own) }),
  ],
  [
    'participants[0].surprise',
    'an unknown participant field',
    () => ({
      participants: [{ identifier: participant(1), surprise: 1 }, { identifier: participant(2) }],
    }),
  ],
  ['ttl', 'under 60', () => ({ ...valid(), ttl: 59 })],
  ['ttl', 'over 30 days', () => ({ ...valid(), ttl: 2_592_001 })],
  ['ttl', 'a fraction', () => ({ ...valid(), ttl: 90.5 })],
  ['ttl', 'a string', () => ({ ...valid(), ttl: '3600' })],
  ['mode', 'not a mode', () => ({ ...valid(), mode: 'video-only' })],
  ['unique_name', 'empty', () => ({ ...valid(), unique_name: '' })],
  ['callback_url', 'not a URL', () => ({ ...valid(), callback_url: 'call me' })],
  ['surprise', 'an unknown field', () => ({ ...valid(), surprise: true })],
];

describe.each(ENGINES)('bad input to proxy sessions (%s)', (engine) => {
  const t = useTestServer({ engine });
  let account: TestAccount;
  let own: string;
  beforeAll(async () => {
    account = await t.newAccount();
    own = await provisionNumber(t, account, { sms: true });
  });
  const post = (body: unknown, apiKey = account.apiKey) =>
    fetch(`${t.directUrl}/v1/proxy/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it.each(BAD)('answers 400 naming %s (%s), and stores nothing', async (field, _what, body) => {
    const before = await stateOfAccount(t, account.sid);
    const res = await post(body(own));
    expect(res.status).toBe(400);
    const problem: any = await res.json();
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await stateOfAccount(t, account.sid)).toEqual(before);
  });

  it('answers 400 url_not_allowed for a callback_url on a private address, and stores nothing', async () => {
    const before = await stateOfAccount(t, account.sid);
    const res = await post({ ...valid(), callback_url: 'http://10.0.0.7/proxy' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 'url_not_allowed',
      errors: [{ field: 'callback_url', message: expect.stringContaining('10.0.0.7') }],
    });
    expect(await stateOfAccount(t, account.sid)).toEqual(before);
  });

  it("answers 404 for another account's session on fetch, end and interactions, like an unknown sid", async () => {
    const session = await createSession(account.client, valid());
    const intruder = await t.newAccount('intruder');
    const unknown = `KC${'0123456789abcdef'.repeat(2)}`;
    const before = await stateOfAccount(t, account.sid);
    for (const sid of [session.sid, unknown]) {
      const path = { params: { path: { sid } } };
      const answers = [
        await intruder.client.GET('/v1/proxy/sessions/{sid}', path),
        await intruder.client.DELETE('/v1/proxy/sessions/{sid}', path),
        await intruder.client.GET('/v1/proxy/sessions/{sid}/interactions', path),
      ];
      for (const { response, error } of answers) {
        expect(response.status).toBe(404);
        expect(error).toMatchObject({ code: 'not_found', detail: `No proxy session ${sid} in your account.` });
      }
    }
    expect(await stateOfAccount(t, account.sid)).toEqual(before);
    const { data } = await account.client.GET('/v1/proxy/sessions/{sid}', { params: { path: { sid: session.sid } } });
    expect(data?.status).toBe('open');
  });
});

describe.each(ENGINES)('the open proxy sessions quota (%s)', (engine) => {
  const t = useTestServer({ engine, env: { MAX_OPEN_PROXY_SESSIONS: '2' } });

  it('answers 422 proxy_session_quota_exceeded beyond MAX_OPEN_PROXY_SESSIONS, and counts only open ones', async () => {
    await provisionNumber(t, t.account, { sms: true });
    const first = await createSession(t.account.client, { participants: pair(participant(1), participant(2)) });
    await createSession(t.account.client, { participants: pair(participant(3), participant(4)) });
    const before = await stateOfAccount(t, t.account.sid);
    const third = await t.account.client.POST('/v1/proxy/sessions', {
      body: { participants: pair(participant(5), participant(6)) },
    });
    expect(third.response.status).toBe(422);
    expect(third.error).toMatchObject({ code: 'proxy_session_quota_exceeded' });
    expect(await stateOfAccount(t, t.account.sid)).toEqual(before);
    await t.account.client.DELETE('/v1/proxy/sessions/{sid}', { params: { path: { sid: first.sid } } });
    await createSession(t.account.client, { participants: pair(participant(5), participant(6)) });
  });
});
