// Bad address input answers 400 naming the field, in JSON and form bodies alike.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';

const VALID = {
  customer_name: 'Example Ltd',
  street: '1 Main Street',
  city: 'London',
  region: 'London',
  postal_code: 'SW1A 1AA',
  iso_country: 'GB',
};

describe.each(ENGINES)('address errors (%s)', (engine) => {
  const t = useTestServer({ engine });

  const post = (body: Record<string, unknown>, form: boolean) =>
    fetch(`${t.directUrl}/v1/addresses`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.account.apiKey}`,
        'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
      },
      body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
    });

  const without = (field: keyof typeof VALID) => Object.fromEntries(Object.entries(VALID).filter(([k]) => k !== field));

  it.each([
    ['customer_name', without('customer_name')],
    ['street', without('street')],
    ['city', { ...VALID, city: '' }],
    ['region', without('region')],
    ['postal_code', without('postal_code')],
    ['iso_country', without('iso_country')],
    ['iso_country', { ...VALID, iso_country: 'GBR' }],
    ['iso_country', { ...VALID, iso_country: 'ZZ' }],
    ['iso_country', { ...VALID, iso_country: '12' }],
    ['street', { ...VALID, street: '   ' }],
    ['friendly_name', { ...VALID, friendly_name: 'x'.repeat(65) }],
    ['country', { ...VALID, country: 'GB' }],
  ])('refuses a bad %s', async (field, body) => {
    for (const form of [false, true]) {
      const res = await post(body, form);
      const problem: any = await res.json();
      expect(res.status, JSON.stringify(problem)).toBe(400);
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await t.account.client.GET('/v1/addresses', {})).data!.data).toEqual([]);
  });

  it.each([
    ['page_size', '/v1/addresses?page_size=1001'],
    ['page_token', '/v1/addresses?page_token=%%%'],
    ['sid', '/v1/addresses/AD-nope'],
  ])('refuses a bad %s', async (field, path) => {
    const res = await fetch(t.directUrl + path, { headers: { authorization: `Bearer ${t.account.apiKey}` } });
    const problem: any = await res.json();
    expect(res.status).toBe(400);
    expect(problem.errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});
