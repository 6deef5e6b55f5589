import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';

describe.each(ENGINES)('GET /v1/lookups/phone-numbers/{number} with bad input (%s)', (engine) => {
  const t = useTestServer({ engine });

  // Sent straight to the server: Prism would answer malformed requests itself.
  const get = (path: string) =>
    fetch(`${t.directUrl}/v1/lookups/phone-numbers/${path}`, {
      headers: { authorization: `Bearer ${t.account.apiKey}` },
    });

  it.each([
    ['a blank number', '%20%20', 'number'],
    ['letters', 'hello', 'number'],
    ['a number with letters in it', '%2B1-800-FLOWERS', 'number'],
    ['an extension', encodeURIComponent('+14155550123 ext. 12'), 'number'],
    ['punctuation without digits', encodeURIComponent('+()-'), 'number'],
    ['symbols', encodeURIComponent('+1415555#0123'), 'number'],
    ['an overlong string', '1'.repeat(65), 'number'],
    ['an unknown country_code', '4155550123?country_code=ZZ', 'country_code'],
    ['a country_code that is not two letters', '4155550123?country_code=USA', 'country_code'],
    ['a numeric country_code', '4155550123?country_code=49', 'country_code'],
  ])('answers 400 naming the field for %s', async (_case, path, field) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as any;
    expect(problem.code).toBe('invalid_request');
    expect(new Set(problem.errors.map((e: any) => e.field))).toEqual(new Set([field]));
  });

  it('answers 400 naming number for an empty number', async () => {
    const res = await get('');
    expect(res.status).toBe(400);
    const problem = (await res.json()) as any;
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors).toEqual([{ field: 'number', message: 'must not be empty' }]);
  });

  it('answers 401 without an API key', async () => {
    const res = await fetch(`${t.directUrl}/v1/lookups/phone-numbers/%2B14155550123`);
    expect(res.status).toBe(401);
  });
});
