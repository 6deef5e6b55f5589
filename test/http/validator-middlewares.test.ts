// The validator's middlewares are called without the library's wait for the loaded spec once they are built
// (server/http/validator-middlewares.ts): the first request goes through the library's wrappers, later ones straight
// to the middlewares they built, and both answer alike.
import { describe, expect, it } from 'vitest';
import { directMiddlewares } from '../../server/http/validator-middlewares.js';
import { ENGINES, useTestServer } from '../support/server.js';

describe.each(ENGINES)("the validator's middlewares (%s)", (engine) => {
  const t = useTestServer({ engine });

  it('are all called directly but the security one, which is not mounted with validateSecurity false', () => {
    // Path params, metadata, request and (in tests) response validation; security left out.
    expect(directMiddlewares).toBe(4);
  });

  it('answer a request the same the first time and later, path params and validation included', async () => {
    const ask = async () => {
      const bad = await t.account.client.GET('/v1/lookups/phone-numbers/{number}', {
        params: { path: { number: '+14155550123' }, query: { fields: 'nonsense' } as never },
      });
      const good = await t.account.client.GET('/v1/lookups/phone-numbers/{number}', {
        params: { path: { number: '+14155550123' } },
      });
      const { request_id: _id, ...error } = bad.error as Record<string, unknown>;
      return { bad: [bad.response.status, error], good: [good.response.status, good.data] };
    };
    const first = await ask();
    expect(first.bad[0]).toBe(400);
    expect(first.good[0]).toBe(200);
    expect(await ask()).toEqual(first);
  });
});
