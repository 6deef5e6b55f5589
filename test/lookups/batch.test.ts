import { describe, expect, it } from 'vitest';
import { createTelephonyClient, toFormBody } from '../../client/index.js';
import { ENGINES, useTestServer } from '../support/server.js';

/** n distinct valid London numbers. */
const londonNumbers = (n: number) =>
  Array.from({ length: n }, (_, i) => `+4420794${String(60000 + i).padStart(5, '0')}`);

describe.each(ENGINES)('POST /v1/lookups/batch (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true });

  describe.each(['json', 'form'] as const)('in a %s body', (encoding) => {
    const client = () => createTelephonyClient({ baseUrl: t.url, apiKey: t.account.apiKey, encoding });

    it('answers one entry per input, in order, duplicates included, each what the single lookup answers', async () => {
      const inputs = ['+447400123456', '03012', 'call me', '+447400123456', '030 1234567', '+19005550123'];
      const { data, response } = await client().POST('/v1/lookups/batch', {
        body: { phone_numbers: inputs, country_code: 'DE' },
      });
      expect(response.status).toBe(200);
      expect(data!.data.map((item) => item.input)).toEqual(inputs);

      for (const [i, input] of inputs.entries()) {
        const item = data!.data[i];
        if (input === 'call me') continue;
        const single = await t.account.client.GET('/v1/lookups/phone-numbers/{number}', {
          params: { path: { number: input }, query: { country_code: 'DE' } },
        });
        expect(item, input).toEqual({ input, result: single.data, error: null });
      }
      expect(data!.data[2]).toEqual({
        input: 'call me',
        result: null,
        error: {
          code: 'not_a_phone_number',
          message: expect.stringContaining('phone_numbers[2] is not a phone number'),
        },
      });
      expect(data!.data[0].result).toMatchObject({ phone_number: '+447400123456', valid: true, line_type: 'mobile' });
      expect(data!.data[1].result).toMatchObject({
        phone_number: '+493012',
        valid: false,
        validation_errors: ['INVALID_BUT_POSSIBLE'],
      });
      expect(t.violations()).toEqual([]);
    });

    it('takes a single number', async () => {
      const { data } = await client().POST('/v1/lookups/batch', { body: { phone_numbers: ['+442079460000'] } });
      expect(data!.data).toEqual([
        expect.objectContaining({ input: '+442079460000', result: expect.objectContaining({ location: 'London' }) }),
      ]);
      expect(t.violations()).toEqual([]);
    });

    it('takes 1000 numbers', async () => {
      const inputs = londonNumbers(1000);
      // Straight to the server: the proxy adds seconds to a body this size without checking more.
      const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: t.account.apiKey, encoding });
      const { data, response } = await direct.POST('/v1/lookups/batch', { body: { phone_numbers: inputs } });
      expect(response.status).toBe(200);
      expect(data!.data.map((item) => item.result?.phone_number)).toEqual(inputs);
      expect(data!.data.every((item) => item.result?.valid && item.result.location === 'London')).toBe(true);
    });
  });

  describe('bad requests (straight to the server)', () => {
    const post = (body: string, contentType = 'application/json') =>
      fetch(`${t.directUrl}/v1/lookups/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.account.apiKey}`, 'content-type': contentType },
        body,
      });
    const json = (value: unknown) => post(JSON.stringify(value));
    const form = (value: Record<string, unknown>) => post(toFormBody(value), 'application/x-www-form-urlencoded');

    it.each([
      ['an empty list', { phone_numbers: [] }, 'phone_numbers'],
      ['no phone_numbers', { country_code: 'US' }, 'phone_numbers'],
      ['a list that is not an array', { phone_numbers: '+14155550123' }, 'phone_numbers'],
      ['an item that is a number', { phone_numbers: ['+14155550123', 14155550123] }, 'phone_numbers[1]'],
      ['an item that is null', { phone_numbers: [null] }, 'phone_numbers[0]'],
      ['an item that is an object', { phone_numbers: [{ number: '+14155550123' }] }, 'phone_numbers[0]'],
      ['an empty item', { phone_numbers: [''] }, 'phone_numbers[0]'],
      ['an overlong item', { phone_numbers: ['+1'.padEnd(65, '5')] }, 'phone_numbers[0]'],
      ['an unknown country_code', { phone_numbers: ['4155550123'], country_code: 'ZZ' }, 'country_code'],
      ['an unknown field', { phone_numbers: ['+14155550123'], numbers: ['+1'] }, 'numbers'],
    ])('answers 400 invalid_request naming the field for %s', async (_case, body, field) => {
      const res = await json(body);
      expect(res.status).toBe(400);
      const problem = (await res.json()) as any;
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors.map((e: any) => e.field)).toContain(field);
    });

    it.each([
      ['JSON', () => json({ phone_numbers: londonNumbers(1001) })],
      ['form', () => form({ phone_numbers: londonNumbers(1001) })],
    ])('answers 400 batch_too_large for 1001 numbers (%s)', async (_encoding, send) => {
      const res = await send();
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        code: 'batch_too_large',
        status: 400,
        errors: [{ field: 'phone_numbers', message: 'must have at most 1000 items' }],
      });
    });

    it('answers 400 for an empty form list', async () => {
      const res = await form({ country_code: 'US' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).errors.map((e: any) => e.field)).toContain('phone_numbers');
    });
  });
});
