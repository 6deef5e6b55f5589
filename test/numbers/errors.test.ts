// Bad input answers 400 naming the field; another account's number answers 404; unavailable numbers 409.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { availableNumber } from './fixtures.js';

describe.each(ENGINES)('phone-number errors (%s)', (engine) => {
  const t = useTestServer({ engine });
  let account: TestAccount;
  let ownSid: string;
  beforeAll(async () => {
    account = await t.newAccount();
    const phoneNumber = await availableNumber(account.client);
    ownSid = (await account.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } })).data!
      .sid;
  });

  const send = (method: string, path: string, body?: unknown, form = false) =>
    fetch(t.directUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${account.apiKey}`,
        ...(body === undefined
          ? {}
          : { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }),
      },
      body:
        body === undefined
          ? undefined
          : form
            ? new URLSearchParams(body as Record<string, string>).toString()
            : JSON.stringify(body),
    });

  async function expectInvalid(res: Response, field: string) {
    const body: any = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.code).toBe('invalid_request');
    expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
  }

  it.each([
    ['PhoneNumber', { PhoneNumber: '4155550123' }],
    ['PhoneNumber', { PhoneNumber: '+1 415 555 0123' }],
    ['PhoneNumber', { PhoneNumber: '+0415555012' }],
    ['PhoneNumber', {}],
    ['SmsUrl', { PhoneNumber: '+14155550123', SmsUrl: 'ftp://example.com/sms' }],
    ['SmsUrl', { PhoneNumber: '+14155550123', SmsUrl: 'not a url' }],
    ['VoiceUrl', { PhoneNumber: '+14155550123', VoiceUrl: 'javascript:alert(1)' }],
    ['StatusCallback', { PhoneNumber: '+14155550123', StatusCallback: '/relative' }],
    ['SmsMethod', { PhoneNumber: '+14155550123', SmsMethod: 'PUT' }],
    ['AddressSid', { PhoneNumber: '+14155550123', AddressSid: 'AD123' }],
    ['FriendlyName', { PhoneNumber: '+14155550123', FriendlyName: 'x'.repeat(65) }],
    ['phone_number', { PhoneNumber: '+14155550123', phone_number: '+14155550123' }],
  ])('refuses a provision with a bad %s (JSON and form)', async (field, body) => {
    await expectInvalid(await send('POST', '/v1/incoming-phone-numbers', body), field);
    await expectInvalid(await send('POST', '/v1/incoming-phone-numbers', body, true), field);
  });

  it.each([
    ['SmsUrl', { SmsUrl: 'ftp://example.com' }],
    ['VoiceUrl', { VoiceUrl: 'mailto:a@example.com' }],
    ['Unknown', { Unknown: 'x' }],
    ['body', {}],
  ])('refuses an update with a bad %s', async (field, body) => {
    await expectInvalid(await send('POST', `/v1/incoming-phone-numbers/${ownSid}`, body), field);
  });

  it.each([
    ['country', '/v1/available-phone-numbers/USA/Local'],
    ['country', '/v1/available-phone-numbers/1A/TollFree'],
    ['country', '/v1/available-phone-numbers/ZZ/Local'],
    ['page_size', '/v1/available-phone-numbers/US/Local?page_size=0'],
    ['page_size', '/v1/available-phone-numbers/US/Local?page_size=1001'],
    ['page_size', '/v1/available-phone-numbers/US/TollFree?page_size=many'],
    ['area_code', '/v1/available-phone-numbers/US/Local?area_code=41a'],
    ['contains', '/v1/available-phone-numbers/US/Local?contains=55-5'],
    ['sms_enabled', '/v1/available-phone-numbers/US/Local?sms_enabled=maybe'],
    ['page_size', '/v1/incoming-phone-numbers?page_size=0'],
    ['page_token', '/v1/incoming-phone-numbers?page_token=bogus'],
    ['phone_number', '/v1/incoming-phone-numbers?phone_number=abc'],
    ['sid', '/v1/incoming-phone-numbers/PN123'],
  ])('refuses a bad %s in %s', async (field, path) => {
    await expectInvalid(await send('GET', path), field);
  });

  it('answers 404 for a country the inventory does not cover, naming the ones it does', async () => {
    const res = await send('GET', '/v1/available-phone-numbers/KP/Local');
    const body: any = await res.json();
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ code: 'not_found', detail: expect.stringContaining('DE, ES, FI, FR, GB') });
  });

  it("answers 404 for another account's number: fetch, update, release", async () => {
    const other = await t.newAccount();
    const path = `/v1/incoming-phone-numbers/${ownSid}`;
    for (const [method, body] of [['GET'], ['POST', { FriendlyName: 'mine now' }], ['DELETE']] as const) {
      const res = await fetch(t.directUrl + path, {
        method,
        headers: { authorization: `Bearer ${other.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      expect(res.status, method).toBe(404);
      expect(((await res.json()) as any).code).toBe('not_found');
    }
    expect((await other.client.GET('/v1/incoming-phone-numbers', {})).data!.data).toEqual([]);
    expect(
      (await account.client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: ownSid } } })).data!
        .friendly_name,
    ).not.toBe('mine now');
  });

  it('answers 404 for a released number and for releasing it twice', async () => {
    const phoneNumber = await availableNumber(account.client);
    const sid = (await account.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } })).data!
      .sid;
    expect((await send('DELETE', `/v1/incoming-phone-numbers/${sid}`)).status).toBe(204);
    expect((await send('DELETE', `/v1/incoming-phone-numbers/${sid}`)).status).toBe(404);
    expect((await send('POST', `/v1/incoming-phone-numbers/${sid}`, { FriendlyName: 'x' })).status).toBe(404);
  });

  it.each([
    [
      'held by this account',
      async () =>
        (await account.client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: ownSid } } })).data!
          .phone_number,
    ],
    ['not a valid number', async () => '+14150000000'],
    ['a premium-rate number', async () => '+19002345678'],
    ['in a country the inventory does not cover', async () => '+85291234567'],
  ])('answers 409 number_unavailable for a number %s', async (_, number) => {
    const res = await send('POST', '/v1/incoming-phone-numbers', { PhoneNumber: await number() });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).code).toBe('number_unavailable');
  });
});
