// Every field of POST /v1/messages with a wrong type, range or format: 400 naming the field, nothing stored.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { rowsOfAccount } from '../support/rows.js';
import { RETENTION_JOB } from '../../server/system/retention.js';

const day = 24 * 3600_000;

describe.each(ENGINES)('bad input to POST /v1/messages (%s)', (engine) => {
  const t = useTestServer({ engine });
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const valid = () => ({ from, to: '+14155550123', body: 'hello' });

  const cases: [string, string, (v: Record<string, unknown>) => Record<string, unknown>][] = [
    ['from', 'missing', ({ from: _, ...rest }) => rest],
    ['from', 'a number, not a string', (v) => ({ ...v, from: 14155550100 })],
    ['from', 'not E.164', (v) => ({ ...v, from: '4155550100' })],
    ['from', 'too long', (v) => ({ ...v, from: '+1415555010012345' })],
    ['to', 'missing', ({ to: _, ...rest }) => rest],
    ['to', 'null', (v) => ({ ...v, to: null })],
    ['to', 'letters', (v) => ({ ...v, to: '+1415CALLNOW' })],
    ['to', 'a leading zero', (v) => ({ ...v, to: '+04155550123' })],
    ['body', 'a number', (v) => ({ ...v, body: 42 })],
    ['body', 'over 1600 characters', (v) => ({ ...v, body: 'x'.repeat(1601) })],
    ['body', 'over 1600 characters, emoji', (v) => ({ ...v, body: '😀'.repeat(1601) })],
    ['body', 'missing without media_url', ({ body: _, ...rest }) => rest],
    ['body', 'empty without media_url', (v) => ({ ...v, body: '' })],
    ['media_url', 'a string, not an array', (v) => ({ ...v, media_url: 'https://cdn.example.com/a.png' })],
    ['media_url[0]', 'not an http(s) URL', (v) => ({ ...v, media_url: ['ftp://cdn.example.com/a.png'] })],
    [
      'media_url',
      'more than 10 URLs',
      (v) => ({ ...v, media_url: Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.png`) }),
    ],
    [
      'media_url',
      'given with channel sms',
      (v) => ({ ...v, channel: 'sms', media_url: ['https://cdn.example.com/a.png'] }),
    ],
    ['send_at', 'not a date-time', (v) => ({ ...v, send_at: 'tomorrow at noon' })],
    ['send_at', 'a number', (v) => ({ ...v, send_at: Date.now() + day })],
    ['send_at', 'in the past', (v) => ({ ...v, send_at: new Date(Date.now() - day).toISOString() })],
    ['send_at', 'over 35 days ahead', (v) => ({ ...v, send_at: new Date(Date.now() + 36 * day).toISOString() })],
    ['status_callback', 'not a URL', (v) => ({ ...v, status_callback: 'call me maybe' })],
    ['status_callback', 'not http(s)', (v) => ({ ...v, status_callback: 'ftp://example.com/cb' })],
    ['status_callback', 'a number', (v) => ({ ...v, status_callback: 7 })],
    ['validity_period', 'zero', (v) => ({ ...v, validity_period: 0 })],
    ['validity_period', 'over 14400', (v) => ({ ...v, validity_period: 14401 })],
    ['validity_period', 'a fraction', (v) => ({ ...v, validity_period: 1.5 })],
    ['validity_period', 'a string', (v) => ({ ...v, validity_period: '60' })],
    ['channel', 'not one of auto, sms, mms, rcs', (v) => ({ ...v, channel: 'fax' })],
    ['surprise', 'an unknown field', (v) => ({ ...v, surprise: true })],
  ];

  it.each(cases)('answers 400 naming %s when it is %s', async (field, _why, mutate) => {
    const res = await fetch(`${t.directUrl}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(mutate(valid())),
    });
    expect(res.status).toBe(400);
    const problem: any = await res.json();
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('stored nothing for any of them', async () => {
    expect(await rowsOfAccount(t, 'messages', account.sid)).toEqual([]);
    // The hourly retention job exists from the start; nothing else may.
    const jobs = await t.server.services.store.db.selectFrom('jobs').select('kind').execute();
    expect(jobs).toEqual([{ kind: RETENTION_JOB.kind }]);
  });

  it.each([
    ['page_size', '0'],
    ['page_size', 'ten'],
    ['status', 'lost'],
    ['direction', 'sideways'],
    ['to', '4155550123'],
    ['date_created_after', 'yesterday'],
    ['date_created_after', '2026-11-25T23:59:60Z'],
    ['date_created_before', '2026-02-30T00:00:00Z'],
    ['page_token', 'not-a-token'],
  ])('answers 400 naming the list filter %s=%s', async (name, value) => {
    const res = await fetch(`${t.directUrl}/v1/messages?${name}=${encodeURIComponent(value)}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(res.status).toBe(400);
    const problem: any = await res.json();
    expect(problem.errors.map((e: { field: string }) => e.field)).toContain(name);
  });

  it('answers 400 naming sid for a malformed message sid', async () => {
    const res = await fetch(`${t.directUrl}/v1/messages/not-a-sid`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].field).toBe('sid');
  });
});
