// Every field of POST /v1/calls and POST /v1/calls/{sid} with a wrong type, range, format or combination: 400
// naming the field, nothing stored or changed.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { waitUntil } from '../support/wait.js';

type Mutate = (v: Record<string, unknown>) => Record<string, unknown>;

const CREATE: [string, string, Mutate][] = [
  ['from', 'missing', ({ from: _, ...rest }) => rest],
  ['from', 'not E.164', (v) => ({ ...v, from: '4155550100' })],
  ['to', 'missing', ({ to: _, ...rest }) => rest],
  ['to', 'letters', (v) => ({ ...v, to: '+1415CALLNOW' })],
  ['url', 'missing without twiml', ({ url: _, ...rest }) => rest],
  ['url', 'not a URL', (v) => ({ ...v, url: 'call me maybe' })],
  ['url', 'not http(s)', (v) => ({ ...v, url: 'ftp://example.com/voice' })],
  ['twiml', 'given with url', (v) => ({ ...v, twiml: '<Response/>' })],
  ['twiml', 'empty', ({ url: _, ...rest }) => ({ ...rest, twiml: '' })],
  ['twiml', 'over 4000 characters', ({ url: _, ...rest }) => ({ ...rest, twiml: 'x'.repeat(4001) })],
  ['twiml', 'a number', ({ url: _, ...rest }) => ({ ...rest, twiml: 42 })],
  ['method', 'not GET or POST', (v) => ({ ...v, method: 'PUT' })],
  ['method', 'given with twiml', ({ url: _, ...rest }) => ({ ...rest, twiml: '<Response/>', method: 'GET' })],
  ['status_callback', 'not a URL', (v) => ({ ...v, status_callback: 'nope' })],
  ['recording_status_callback', 'not a URL', (v) => ({ ...v, recording_status_callback: 'nope' })],
  ['timeout', 'under 5', (v) => ({ ...v, timeout: 4 })],
  ['timeout', 'over 600', (v) => ({ ...v, timeout: 601 })],
  ['timeout', 'a fraction', (v) => ({ ...v, timeout: 7.5 })],
  ['timeout', 'a string', (v) => ({ ...v, timeout: '30' })],
  ['time_limit', 'zero', (v) => ({ ...v, time_limit: 0 })],
  ['time_limit', 'over 14400', (v) => ({ ...v, time_limit: 14401 })],
  ['record', 'not a boolean', (v) => ({ ...v, record: 'yes' })],
  ['recording_channels', 'not mono or dual', (v) => ({ ...v, recording_channels: 'stereo' })],
  ['status_callback_event', 'a string, not an array', (v) => ({ ...v, status_callback_event: 'initiated' })],
  ['status_callback_event', 'empty', (v) => ({ ...v, status_callback_event: [] })],
  ['status_callback_event', 'an unknown event', (v) => ({ ...v, status_callback_event: ['hangup'] })],
  ['surprise', 'an unknown field', (v) => ({ ...v, surprise: true })],
];

const UPDATE: [string, string, Record<string, unknown>][] = [
  ['status', 'not canceled or completed', { status: 'in-progress' }],
  ['url', 'given with status', { status: 'completed', url: 'https://app.example.com/next' }],
  ['twiml', 'given with status', { status: 'canceled', twiml: '<Response/>' }],
  ['method', 'given with status', { status: 'completed', method: 'GET' }],
  ['twiml', 'given with url', { url: 'https://app.example.com/next', twiml: '<Response/>' }],
  ['method', 'given without url', { twiml: '<Response/>', method: 'GET' }],
  ['method', 'given alone', { method: 'POST' }],
  ['method', 'not GET or POST', { url: 'https://app.example.com/next', method: 'PATCH' }],
  ['url', 'not a URL', { url: 'next please' }],
  ['twiml', 'empty', { twiml: '' }],
  ['surprise', 'an unknown field', { status: 'completed', surprise: 1 }],
];

describe.each(ENGINES)('bad input to the calls API (%s)', (engine) => {
  const t = useTestServer({ engine });
  let account: TestAccount;
  let from: string;
  let queued: string;
  const callRows = () =>
    t.server.services.store.db.selectFrom('calls').selectAll().where('account_sid', '=', account.sid).execute();
  let before: Awaited<ReturnType<typeof callRows>>[number];
  beforeAll(async () => {
    ({ account, from } = await accountWithNumber(t));
    // The sandbox's no-answer number rings for ten minutes: the call stays as it is while bad requests come in.
    const body = { from, to: '+15005550007', twiml: '<Response/>', timeout: 600 };
    queued = (await account.client.POST('/v1/calls', { body })).data!.sid;
    before = await waitUntil(async () => (await callRows()).find((r) => r.status === 'ringing'), 10_000, 'ringing');
  });

  const post = (path: string, body: unknown) =>
    fetch(`${t.directUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const fieldsOf = async (res: Response) => {
    expect(res.status).toBe(400);
    const problem: any = await res.json();
    expect(problem.code).toBe('invalid_request');
    return problem.errors.map((e: { field: string }) => e.field.replace(/\[\d+\]$/, ''));
  };

  it.each(CREATE)('POST /v1/calls answers 400 naming %s when it is %s', async (field, _why, mutate) => {
    const valid = { from, to: '+14155550123', url: 'https://app.example.com/voice' };
    expect(await fieldsOf(await post('/v1/calls', mutate(valid)))).toContain(field);
  });

  const BAD_TWIML: [string, string, string][] = [
    ['not XML', 'hello there', 'not XML'],
    ['an unknown verb', '<Response><Dance/></Response>', '<Dance>'],
    ['a bad attribute value', '<Response><Gather numDigits="x"/></Response>', 'numDigits'],
    ['an unknown attribute', '<Response><Say colour="blue">Hi</Say></Response>', 'colour'],
  ];
  it.each(BAD_TWIML)('POST /v1/calls answers 400 naming twiml when it is %s', async (_why, twiml, named) => {
    const res = await post('/v1/calls', { from, to: '+14155550123', twiml });
    expect(await fieldsOf(res.clone())).toEqual(['twiml']);
    const problem: any = await res.json();
    expect(problem.errors[0].message).toContain(named);
  });

  it.each(UPDATE)('POST /v1/calls/{sid} answers 400 naming %s when it is %s', async (field, _why, body) => {
    expect(await fieldsOf(await post(`/v1/calls/${queued}`, body))).toContain(field);
  });

  it('POST /v1/calls/{sid} answers 400 invalid_request for an empty body', async () => {
    const res = await post(`/v1/calls/${queued}`, {});
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).code).toBe('invalid_request');
  });

  it('stored and changed nothing for any of them', async () => {
    expect(await callRows()).toEqual([before]);
  });

  it.each([
    ['page_size', '0'],
    ['status', 'ringing-ish'],
    ['direction', 'sideways'],
    ['to', '4155550123'],
    ['from', 'me'],
    ['date_created_after', 'yesterday'],
    ['date_created_before', '2025-13-01'],
    ['date_created_after', '2026-11-25T23:59:60Z'],
    ['date_created_before', '2026-02-30T00:00:00Z'],
    ['page_token', 'not-a-token'],
  ])('GET /v1/calls answers 400 naming the filter %s=%s', async (name, value) => {
    const res = await fetch(`${t.directUrl}/v1/calls?${name}=${encodeURIComponent(value)}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(await fieldsOf(res)).toContain(name);
  });

  it.each(['/v1/calls/not-a-sid', '/v1/calls/SM0123456789abcdef0123456789abcdef/recordings'])(
    'answers 400 naming sid for a malformed call sid (%s)',
    async (path) => {
      const res = await fetch(`${t.directUrl}${path}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
      expect(await fieldsOf(res)).toEqual(['sid']);
    },
  );
});
