import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { CompiledQuery } from 'kysely';
import { start, type RunningServer } from '../../server/app.js';
import { ENGINES, startTestServer, useTestServer, type TestServer } from '../support/server.js';

/** Two requests per 1-second window, and a burst allowance of two more per 10 seconds: four, then 429. */
const SMALL = { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '4' };

const list = (url: string, apiKey: string) =>
  fetch(`${url}/v1/messages`, { headers: { authorization: `Bearer ${apiKey}` } });

/** Makes `n` requests one after the other; their statuses. */
async function statuses(url: string, apiKey: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await list(url, apiKey)).status);
  return out;
}

/** A check whose requests did not all fall within one window of the limiter: its outcome says nothing. */
class SlowerThanTheWindow extends Error {}

/**
 * Runs `check` for a fresh account, and again (three tries in all) when its requests spread over more than the
 * limiter's 1-second window, which starts at an account's first request: on a machine busy with other tests, five
 * requests in a row can take that long. `inWindow` marks the start and the end of each stretch that must fit.
 */
async function withinTheWindow(
  newAccount: () => Promise<{ apiKey: string }>,
  check: (apiKey: string, inWindow: <T>(stretch: () => Promise<T>) => Promise<T>) => Promise<void>,
): Promise<void> {
  const inWindow = async <T>(stretch: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await stretch();
    if (performance.now() - started > 800) throw new SlowerThanTheWindow();
    return result;
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await check((await newAccount()).apiKey, inWindow);
    } catch (err) {
      if (!(err instanceof SlowerThanTheWindow) || attempt === 3) throw err;
    }
  }
}

async function expectRateLimited(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('ratelimit-limit')).toBe('2');
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(res.headers.get('ratelimit-reset')).toBe('1');
  expect(await res.json()).toMatchObject({
    status: 429,
    code: 'rate_limited',
    type: '/problems/rate_limited',
  });
}

describe.each(ENGINES)('the request rate limit (%s)', (engine) => {
  const t = useTestServer({ engine, env: SMALL, contract: true });

  const spent = (apiKey: string) => statuses(t.directUrl, apiKey, 5);

  it('answers 429 rate_limited with Retry-After and RateLimit-* once the rate and burst are spent', async () => {
    await withinTheWindow(
      () => t.newAccount(),
      async (apiKey, inWindow) => {
        const [allowed, refused] = await inWindow(async () => [
          await statuses(t.directUrl, apiKey, 4),
          // Through the contract proxy: the 429 and its headers are the spec's.
          await list(t.url, apiKey),
        ]);
        expect(allowed).toEqual([200, 200, 200, 200]);
        await expectRateLimited(refused);
      },
    );
    expect(t.violations()).toEqual([]);
  });

  it('gives the rate back once the window has passed (the burst allowance stays spent for its 10 s)', async () => {
    await withinTheWindow(
      () => t.newAccount(),
      async (apiKey, inWindow) => {
        expect(await inWindow(() => spent(apiKey))).toEqual([200, 200, 200, 200, 429]);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        expect(await inWindow(() => statuses(t.directUrl, apiKey, 3))).toEqual([200, 200, 429]);
      },
    );
  });

  it('limits each account on its own: another account is not limited', async () => {
    await withinTheWindow(
      () => t.newAccount(),
      async (apiKey, inWindow) => {
        expect(await inWindow(() => spent(apiKey))).toEqual([200, 200, 200, 200, 429]);
        const other = await t.newAccount('other');
        expect(await statuses(t.directUrl, other.apiKey, 4)).toEqual([200, 200, 200, 200]);
      },
    );
  });

  it('counts requests only after the API key check: a request without a key answers 401, not 429', async () => {
    await withinTheWindow(
      () => t.newAccount(),
      async (apiKey, inWindow) => {
        const [limited, anonymous] = await inWindow(async () => [
          await spent(apiKey),
          (await fetch(`${t.directUrl}/v1/messages`)).status,
        ]);
        expect(limited).toEqual([200, 200, 200, 200, 429]);
        expect(anonymous).toBe(401);
      },
    );
  });

  it('leaves routes outside /v1 alone', async () => {
    await withinTheWindow(
      () => t.newAccount(),
      async (apiKey, inWindow) => {
        const [limited, health] = await inWindow(async () => [
          await spent(apiKey),
          (await fetch(`${t.directUrl}/healthz`)).status,
        ]);
        expect(limited).toEqual([200, 200, 200, 200, 429]);
        expect(health).toBe(200);
      },
    );
  });
});

describe.each(ENGINES)('the request rate limit turned off (%s)', (engine) => {
  for (const env of [
    { RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_BURST: '4' },
    { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '0' },
  ]) {
    describe(`with ${JSON.stringify(env)}`, () => {
      const t = useTestServer({ engine, env });
      it('answers every one of 30 requests at once', async () => {
        const all = await Promise.all(Array.from({ length: 30 }, () => list(t.directUrl, t.account.apiKey)));
        expect(all.map((r) => r.status)).toEqual(Array(30).fill(200));
        expect(all.some((r) => r.headers.has('ratelimit-limit'))).toBe(false);
      });
    });
  }

  describe('in the default environment of test servers', () => {
    const t = useTestServer({ engine });
    it('answers 250 requests at once, beyond the default burst of 200', async () => {
      expect(t.config.rateLimitPerSecond).toBe(0);
      const all = await Promise.all(Array.from({ length: 250 }, () => list(t.directUrl, t.account.apiKey)));
      expect(all.map((r) => r.status)).toEqual(Array(250).fill(200));
    });
  });
});

/** A Redis on loopback for the REDIS_URL tests (CI sets it, as TEST_DATABASE_URL for PostgreSQL). */
const REDIS_URL = process.env.TEST_REDIS_URL;

describe.runIf(REDIS_URL).each(ENGINES)('the request rate limit in Redis (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...SMALL, REDIS_URL: REDIS_URL! } });
  const redis = new Redis(REDIS_URL!);
  afterAll(() => redis.quit());

  it('answers 429 rate_limited once the rate and the burst are spent, counting in Redis', async () => {
    let sid = '';
    const fresh = async () => {
      const account = await t.newAccount();
      sid = account.sid;
      return account;
    };
    await withinTheWindow(fresh, async (apiKey, inWindow) => {
      const [allowed, refused, counted] = await inWindow(async () => [
        await statuses(t.directUrl, apiKey, 4),
        await list(t.directUrl, apiKey),
        Number(await redis.get(`telephony:rate:${sid}`)),
      ]);
      expect(allowed).toEqual([200, 200, 200, 200]);
      await expectRateLimited(refused);
      expect(counted).toBeGreaterThanOrEqual(2);
      expect(Number(await redis.get(`telephony:burst:${sid}`))).toBeGreaterThanOrEqual(2);
    });
  });
});

/** Where two instances on one PostgreSQL database keep their shared counters: the database, or Redis. */
const SHARED_STORES = [
  { store: 'the database', env: SMALL, rowsInDatabase: true },
  ...(REDIS_URL ? [{ store: 'Redis', env: { ...SMALL, REDIS_URL }, rowsInDatabase: false }] : []),
];

describe.runIf(ENGINES.includes('postgres')).each(SHARED_STORES)(
  'the request rate limit on PostgreSQL, counted in $store',
  ({ env, rowsInDatabase }) => {
    let first: TestServer | undefined;
    let second: RunningServer | undefined;
    afterAll(async () => {
      await second?.close();
      await first?.stop();
    });

    it('is one budget for two instances on one database', async () => {
      first = await startTestServer('postgres', env);
      second = await start({ ...first.config, port: 0 });
      const [one, two] = [first, second];
      await withinTheWindow(
        () => one.newAccount(),
        async (apiKey, inWindow) => {
          const [fromFirst, fromSecond, refusedBySecond, refusedByFirst] = await inWindow(async () => [
            await statuses(one.directUrl, apiKey, 2),
            await statuses(two.url, apiKey, 2),
            await list(two.url, apiKey),
            await list(one.directUrl, apiKey),
          ]);
          expect(fromFirst).toEqual([200, 200]);
          expect(fromSecond).toEqual([200, 200]);
          await expectRateLimited(refusedBySecond);
          await expectRateLimited(refusedByFirst);
        },
      );
      const { rows } = await first.server.services.store.db.executeQuery<{ n: number }>(
        CompiledQuery.raw('select count(*)::int as n from rate_limits'),
      );
      expect(rows[0].n > 0).toBe(rowsInDatabase);
    });
  },
);

describe.each(ENGINES)('the request rate limit while its Redis does not answer (%s)', (engine) => {
  // Nothing listens on port 1 of loopback: every attempt to count fails at once.
  const t = useTestServer({ engine, env: { ...SMALL, REDIS_URL: 'redis://127.0.0.1:1' } });

  it('lets requests through rather than refuse every account', async () => {
    expect(await statuses(t.directUrl, t.account.apiKey, 6)).toEqual([200, 200, 200, 200, 200, 200]);
  });
});
