// The 5xx the fuzz suite found, each pinned by a focused test: huge page sizes and NUL characters in text.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { stateOfAccount } from '../support/rows.js';
import { callAs, fuzzAccount, type FuzzAccountOf } from './accounts.js';

describe.each(ENGINES)('input the fuzz suite found answering 500 (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, RATE_LIMIT_PER_SECOND: '0' } });
  let account: FuzzAccountOf;
  beforeAll(async () => {
    account = await fuzzAccount(t);
  });

  const call = (method: string, path: string, body?: unknown) => callAs(t, account.apiKey, method, path, body);

  async function expectInvalid(res: Response, field: string) {
    const problem: any = await res.json();
    expect(res.status, JSON.stringify(problem)).toBe(400);
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors?.map((e: { field: string }) => e.field) ?? [problem.detail]).toContainEqual(
      expect.stringContaining(field),
    );
  }

  // The validator coerces 1e400 to Infinity, which passes its integer and maximum checks; SQL refused LIMIT Infinity.
  it.each([
    '/v1/messages',
    '/v1/incoming-phone-numbers',
    '/v1/addresses',
    '/v1/available-phone-numbers/US/Local',
    '/v1/available-phone-numbers/US/TollFree',
  ])('answers 400 naming page_size for page_size=1e400 on %s', async (path) => {
    await expectInvalid(await call('GET', `${path}?page_size=1e400`), 'page_size');
  });

  // PostgreSQL cannot store U+0000 in text: a NUL in a stored or compared text field answered 500 there.
  it.each([
    ['POST', '/v1/messages', 'body', () => ({ from: account.number, to: '+15005550003', body: 'a\u0000b' })],
    [
      'POST',
      '/v1/addresses',
      'customer_name',
      () => ({
        customer_name: 'a\u0000',
        street: 's',
        city: 'c',
        region: 'r',
        postal_code: '10117',
        iso_country: 'DE',
      }),
    ],
    ['POST', '/v1/incoming-phone-numbers/{sid}', 'FriendlyName', () => ({ FriendlyName: '\u0000' })],
    [
      'POST',
      '/v1/verify/send',
      'custom_message',
      () => ({ to: '+15005550003', channel: 'sms', custom_message: '\u0000{code}' }),
    ],
    [
      'POST',
      '/v1/sandbox/inbound-messages',
      'body',
      () => ({ from: '+15005550003', to: account.number, body: '\u0000' }),
    ],
    ['POST', '/v1/account', 'verify_callback_url', () => ({ verify_callback_url: 'http://127.0.0.1:9/a\u0000b' })],
    ['POST', '/v1/incoming-phone-numbers/{sid}', 'SmsUrl', () => ({ SmsUrl: 'http://127.0.0.1:9/\u0000' })],
    [
      'POST',
      '/v1/messages',
      'status_callback',
      () => ({ from: account.number, to: '+15005550003', body: 'x', status_callback: 'http://127.0.0.1:9/\u0000' }),
    ],
  ] as const)('answers 400 and stores nothing for a NUL in %s %s %s', async (method, path, field, body) => {
    const before = await stateOfAccount(t, account.sid);
    await expectInvalid(await call(method, path.replace('{sid}', account.numberSid), body()), field);
    expect(await stateOfAccount(t, account.sid)).toEqual(before);
  });

  // A forged token whose cursor held a NUL reached SQL: 500 on PostgreSQL. Only cursors this API writes are taken.
  it.each([
    ['a NUL', { c: '\u0000', s: 'SM\u0000' }],
    ['a date that is not one', { c: 'yesterday', s: `SM${'0'.repeat(32)}` }],
    ['a sid that is not one', { c: '2026-01-01T00:00:00.000Z', s: "' or 1=1 --" }],
  ])('answers 400 naming page_token for a forged token with %s', async (_why, cursor) => {
    const token = Buffer.from(JSON.stringify(cursor)).toString('base64url');
    for (const path of ['/v1/messages', '/v1/incoming-phone-numbers', '/v1/addresses']) {
      await expectInvalid(await call('GET', `${path}?page_token=${token}`), 'page_token');
    }
  });

  it.each([
    ['/v1/incoming-phone-numbers?friendly_name=a%00b', 'friendly_name'],
    ['/v1/available-phone-numbers/US/Local?in_region=%00', 'in_region'],
    ['/v1/available-phone-numbers/US/Local?in_locality=%00', 'in_locality'],
  ])('answers 400 for a NUL in the query %s', async (path, field) => {
    await expectInvalid(await call('GET', path), field);
  });

  // A re-send read the verification as pending, then a cancel (or a check) ended it before the re-send's update:
  // the update found no row and the send answered 500. A re-send that loses that race starts a new verification.
  it('answers every re-send racing a cancel with 201, never 500', async () => {
    const statuses = new Set<number>();
    for (let round = 0; round < 25; round++) {
      const to = `+1415555${String(1000 + round).padStart(4, '0')}`;
      const first: any = await (await call('POST', '/v1/verify/send', { to, channel: 'sms' })).json();
      const [resend, cancel] = await Promise.all([
        call('POST', '/v1/verify/send', { to, channel: 'voice' }),
        call('POST', `/v1/verify/${first.sid}`, { status: 'canceled' }),
      ]);
      statuses.add(resend.status);
      expect(cancel.status).toBe(200);
    }
    expect([...statuses]).toEqual([201]);
  });
});
