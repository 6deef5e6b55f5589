// Bad input to the verify operations: a 400 problem naming each offending field, in JSON and form bodies alike.
// Sent straight to the server: Prism would answer malformed requests itself.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';

describe.each(ENGINES)('verify operations with bad input (%s)', (engine) => {
  const t = useTestServer({ engine });

  async function post(path: string, body: Record<string, unknown>, encoding: 'json' | 'form' = 'json') {
    const form = new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]));
    return fetch(`${t.directUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.account.apiKey}`,
        'content-type': encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
      },
      body: encoding === 'json' ? JSON.stringify(body) : form,
    });
  }

  async function expectFields(res: Response, fields: string[]) {
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as any;
    expect(problem.code).toBe('invalid_request');
    expect(new Set(problem.errors.map((e: any) => e.field))).toEqual(new Set(fields));
  }

  const good = { to: '+14155550123', channel: 'sms' };
  it.each([
    ['code_length 3', { ...good, code_length: 3 }, 'code_length'],
    ['code_length 9', { ...good, code_length: 9 }, 'code_length'],
    ['an unknown channel', { ...good, channel: 'fax' }, 'channel'],
    ['a to without +', { ...good, to: '4155550123' }, 'to'],
    ['a to with letters', { ...good, to: '+1415CALLNOW' }, 'to'],
    ['a custom_message without {code}', { ...good, custom_message: 'Your code is ready' }, 'custom_message'],
    ['an unsupported locale', { ...good, locale: 'xx' }, 'locale'],
    ['valid_for under a minute', { ...good, valid_for: 59 }, 'valid_for'],
    ['valid_for over a day', { ...good, valid_for: 86_401 }, 'valid_for'],
    ['a missing to', { channel: 'sms' }, 'to'],
    ['an unknown field', { ...good, friendly_name: 'Acme' }, 'friendly_name'],
  ])('POST /v1/verify/send answers 400 naming the field for %s', async (_case, body, field) => {
    await expectFields(await post('/v1/verify/send', body), [field]);
  });

  it.each([
    ['code_length 9', { ...good, code_length: 9 }, 'code_length'],
    ['code_length abc', { ...good, code_length: 'abc' }, 'code_length'],
    ['an unknown channel', { ...good, channel: 'pigeon' }, 'channel'],
  ])('POST /v1/verify/send answers 400 for a form body with %s', async (_case, body, field) => {
    await expectFields(await post('/v1/verify/send', body, 'form'), [field]);
  });

  it.each([
    ['a non-numeric code', { to: '+14155550123', code: '12ab56' }, ['code']],
    ['a code of 3 digits', { to: '+14155550123', code: '123' }, ['code']],
    ['a numeric JSON code', { to: '+14155550123', code: 123456 }, ['code']],
    ['a malformed verification_sid', { verification_sid: 'VE123', code: '123456' }, ['verification_sid']],
    ['neither to nor verification_sid', { code: '123456' }, ['to', 'verification_sid']],
    [
      'both to and verification_sid',
      { to: '+14155550123', verification_sid: 'VE' + 'a'.repeat(32), code: '123456' },
      ['to', 'verification_sid'],
    ],
  ])('POST /v1/verify/check answers 400 naming the field for %s', async (_case, body, fields) => {
    await expectFields(await post('/v1/verify/check', body), fields);
  });

  it('answers 400 to a cancel that asks for another status, and to a malformed sid', async () => {
    await expectFields(await post(`/v1/verify/VE${'a'.repeat(32)}`, { status: 'approved' }), ['status']);
    const res = await fetch(`${t.directUrl}/v1/verify/nope`, {
      headers: { authorization: `Bearer ${t.account.apiKey}` },
    });
    expect(res.status).toBe(400);
  });

  it('answers 400 to a verify_callback_url that is not an http URL', async () => {
    await expectFields(await post('/v1/account', { verify_callback_url: 'ftp://example.com/x' }), [
      'verify_callback_url',
    ]);
  });
});
