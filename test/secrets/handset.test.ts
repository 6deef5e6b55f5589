// The sandbox handset's record of a code (the one place a developer reads it) lasts only while its verification is
// pending: every way a verification ends removes it, and GET /v1/sandbox/verification-codes/{to} then answers 404.
import { describe, expect, it } from 'vitest';
import type { TelephonyClient } from '../../client/index.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { TestClock } from '../support/clock.js';
import { waitUntil } from '../support/wait.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode } from '../verify/flow.js';

type Ending = (client: TelephonyClient, sid: string, code: string, clock: TestClock) => Promise<void>;

const wrong = (code: string) => (code.startsWith('0') ? '111111' : '000000');

const ENDINGS: [string, Ending][] = [
  [
    'approved',
    async (client, sid, code) => {
      await check(client, { verification_sid: sid, code });
    },
  ],
  [
    'canceled',
    async (client, sid) => {
      await client.POST('/v1/verify/{sid}', { params: { path: { sid } }, body: { status: 'canceled' } });
    },
  ],
  [
    'max_attempts_reached',
    async (client, sid, code) => {
      for (let i = 0; i < 5; i++) await check(client, { verification_sid: sid, code: wrong(code) });
    },
  ],
  [
    'expired',
    async (_client, _sid, _code, clock) => {
      clock.advance(60_000);
    },
  ],
];

describe.each(ENGINES)('the sandbox handset record of a code (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: FAST_VERIFY, clock });

  it.each(ENDINGS)('is removed when its verification ends %s', async (status, end) => {
    const client = t.account.client;
    const to = freshNumber();
    const sent = await sendCode(client, { to, channel: 'sms', code_length: 6, valid_for: 60 });
    const { code } = await deliveredCode(client, to);
    const handset = () =>
      t.server.services.store.db
        .selectFrom('sandbox_otp_deliveries')
        .select('verification_sid')
        .where('account_sid', '=', t.account.sid)
        .execute();
    expect(await handset()).toEqual([{ verification_sid: sent.sid }]);

    await end(client, sent.sid, code, clock);
    // The expiry job ends an expired one without anyone reading it.
    await waitUntil(async () => (await handset()).length === 0, 10_000, 'the handset record to go');
    const { data } = await client.GET('/v1/verify/{sid}', { params: { path: { sid: sent.sid } } });
    expect(data?.status).toBe(status);
    const { response, error } = await client.GET('/v1/sandbox/verification-codes/{to}', {
      params: { path: { to } },
    });
    expect(response.status).toBe(404);
    expect(error?.code).toBe('not_found');
  });
});
