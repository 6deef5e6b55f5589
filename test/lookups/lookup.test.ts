import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';

describe.each(ENGINES)('GET /v1/lookups/phone-numbers/{number} (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true });

  const lookup = async (number: string, country_code?: string) => {
    const { data, response } = await t.account.client.GET('/v1/lookups/phone-numbers/{number}', {
      params: { path: { number }, query: country_code ? { country_code } : {} },
    });
    expect(response.status).toBe(200);
    return data!;
  };

  it('describes a valid mobile number: formats, country, line type, carrier from the libphonenumber data', async () => {
    expect(await lookup('+447400123456')).toEqual({
      phone_number: '+447400123456',
      valid: true,
      validation_errors: [],
      country_code: 'GB',
      calling_country_code: '44',
      national_format: '07400 123456',
      line_type: 'mobile',
      carrier: { name: 'Three', mobile_country_code: null, mobile_network_code: null },
      location: null,
      spam_score: 5,
      spam_reasons: [
        { reason: 'not_held_on_platform', weight: 5, description: 'No account on this platform holds this number.' },
      ],
    });
    expect(t.violations()).toEqual([]);
  });

  it('gives the location of a geographic number', async () => {
    expect(await lookup('+442079460000')).toMatchObject({
      line_type: 'landline',
      location: 'London',
      carrier: null,
      national_format: '020 7946 0000',
    });
    expect(await lookup('+14155550123')).toMatchObject({
      country_code: 'US',
      calling_country_code: '1',
      national_format: '(415) 555-0123',
      location: 'San Francisco, CA',
    });
    expect(t.violations()).toEqual([]);
  });

  it('calls North American fixed-or-mobile ranges unknown without counting that against the score', async () => {
    const result = await lookup('+14155550123');
    expect(result.line_type).toBe('unknown');
    expect(result.spam_reasons.map((r) => r.reason)).toEqual(['not_held_on_platform']);
  });

  it.each([
    ['+447400123456', 'mobile'],
    ['+442079460000', 'landline'],
    ['+18005550123', 'toll_free'],
    ['+19005550123', 'premium'],
    ['+33820314076', 'shared_cost'],
    ['+445661556481', 'voip'],
    ['+447077681646', 'personal'],
    ['+4916833558527', 'pager'],
    ['+443768253986', 'uan'],
    ['+3936220824507', 'voicemail'],
  ] as const)('classifies %s as %s', async (number, lineType) => {
    expect((await lookup(number)).line_type).toBe(lineType);
  });

  it('accepts the + literally, URL-encoded, and written with spaces and punctuation', async () => {
    for (const path of ['+447400123456', '%2B447400123456', encodeURIComponent('+44 (0)7400 123-456')]) {
      const res = await fetch(`${t.url}/v1/lookups/phone-numbers/${path}`, {
        headers: { authorization: `Bearer ${t.account.apiKey}` },
      });
      expect(res.status, path).toBe(200);
      expect(((await res.json()) as any).phone_number, path).toBe('+447400123456');
    }
    expect(t.violations()).toEqual([]);
  });

  it('reads a national number in the country given by country_code (either case)', async () => {
    expect(await lookup('030 1234567', 'de')).toMatchObject({
      phone_number: '+49301234567',
      valid: true,
      country_code: 'DE',
      location: 'Berlin',
    });
    expect(await lookup('(415) 555-0123', 'US')).toMatchObject({ phone_number: '+14155550123', valid: true });
    // E.164 input ignores country_code.
    expect(await lookup('+447400123456', 'US')).toMatchObject({ country_code: 'GB', valid: true });
    expect(t.violations()).toEqual([]);
  });

  it.each([
    // +1 and +44 serve several countries: which one an invalid number belongs to is unknown.
    [
      '+1415555012',
      undefined,
      'TOO_SHORT',
      { phone_number: '+1415555012', calling_country_code: '1', country_code: null },
    ],
    ['+141555501234', undefined, 'TOO_LONG', { calling_country_code: '1' }],
    [
      '+999123456',
      undefined,
      'INVALID_COUNTRY_CODE',
      { phone_number: '+999123456', calling_country_code: null, country_code: null },
    ],
    ['4155550123', undefined, 'INVALID_COUNTRY_CODE', { phone_number: '4155550123' }],
    [
      '+447700900123',
      undefined,
      'INVALID_BUT_POSSIBLE',
      { phone_number: '+447700900123', country_code: null, calling_country_code: '44' },
    ],
    ['03012', 'DE', 'INVALID_BUT_POSSIBLE', { phone_number: '+493012', country_code: 'DE' }],
    ['+4930', undefined, 'TOO_SHORT', { phone_number: '+4930', country_code: 'DE', calling_country_code: '49' }],
    ['1+1', undefined, 'NOT_A_NUMBER', { phone_number: '1+1', country_code: null }],
  ] as const)('answers 200 valid false for %s (country %s) with %s', async (number, country, error, fields) => {
    const result = await lookup(number, country);
    expect(result).toMatchObject({
      valid: false,
      validation_errors: [error],
      national_format: null,
      line_type: 'unknown',
      carrier: null,
      location: null,
      ...fields,
    });
    expect(result.spam_reasons.map((r) => [r.reason, r.weight])).toEqual([
      ['invalid_number', 30],
      ['unknown_line_type', 10],
      ['not_held_on_platform', 5],
    ]);
    expect(result.spam_score).toBe(45);
    expect(t.violations()).toEqual([]);
  });

  it('scores a premium-rate number high and says why', async () => {
    const result = await lookup('+19005550123');
    expect(result.spam_reasons.map((r) => [r.reason, r.weight])).toEqual([
      ['premium_rate_number', 60],
      ['not_held_on_platform', 5],
    ]);
    expect(result.spam_score).toBe(65);
  });
});
