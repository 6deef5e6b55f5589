// valid_for: a verification past its expiry is `expired`, shown at once on read (lazy) and ended by the durable
// expiry job even when nobody reads it. valid_for passes on the server's TestClock.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestServer, type TestAccount, type TestServer, useTestServer } from '../support/server.js';
import { startReceiver, useReceiver } from '../support/webhook-receiver.js';
import { TestClock } from '../support/clock.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode } from './flow.js';

/** LIMITS.validFor.default: a verification's life when the request gives no valid_for. */
const DEFAULT_VALID_FOR_MS = 600_000;

/** Runs `fn` with the job worker stopped, so that only a request can expire a verification meanwhile. */
async function withoutJobs(t: TestServer, fn: () => Promise<void>): Promise<void> {
  await t.server.worker.stop();
  try {
    await fn();
  } finally {
    t.server.worker.start();
  }
}

describe.each(ENGINES)('verification expiry (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: FAST_VERIFY, clock });
  const receiver = useReceiver();
  let account: TestAccount;
  beforeAll(async () => {
    account = await t.newAccount();
    await account.client.POST('/v1/account', { body: { verify_callback_url: `${receiver.url}/verify` } });
  });

  it('shows expired on GET once valid_for has passed, before the job runs, and the code no longer works', async () => {
    const to = freshNumber();
    const sent = await sendCode(account.client, { to, channel: 'sms', valid_for: 60 });
    const { code } = await deliveredCode(account.client, to);
    await withoutJobs(t, async () => {
      clock.advance(60_000);
      const { data } = await account.client.GET('/v1/verify/{sid}', { params: { path: { sid: sent.sid } } });
      expect(data).toMatchObject({ status: 'expired', valid: false, date_expires: sent.date_expires });
      expect(data?.date_updated).toBe(data?.date_expires);
      const checked = await check(account.client, { verification_sid: sent.sid, code });
      expect(checked.response.status).toBe(409);
      expect(checked.error?.code).toBe('verification_not_pending');
    });
  });

  it('treats a check after valid_for as expired even without a read first', async () => {
    const to = freshNumber();
    const sent = await sendCode(account.client, { to, channel: 'sms' });
    const { code } = await deliveredCode(account.client, to);
    await withoutJobs(t, async () => {
      clock.advance(DEFAULT_VALID_FOR_MS);
      expect((await check(account.client, { to, code })).response.status).toBe(404);
      // A send to the number starts a new verification rather than re-sending the expired code.
      const next = await sendCode(account.client, { to, channel: 'sms' });
      expect(next.sid).not.toBe(sent.sid);
      expect(next.status).toBe('pending');
    });
  });

  it('expires it with the durable job when nobody reads it, and posts verification.expired', async () => {
    const to = freshNumber();
    const sent = await sendCode(account.client, { to, channel: 'sms' });
    clock.advance(DEFAULT_VALID_FOR_MS);
    await receiver.waitFor((all) =>
      all.some((w) => w.json?.type === 'verification.expired' && w.json.data.sid === sent.sid),
    );
    const row = await t.server.services.store.db
      .selectFrom('verifications')
      .select(['status', 'code_sealed'])
      .where('sid', '=', sent.sid)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'expired', code_sealed: null });
  });
});

describe.each(ENGINES)('verification expiry across a restart (%s)', (engine) => {
  it('expires a verification with the expiry job recorded before a restart', async () => {
    const clock = new TestClock();
    const t = await startTestServer(engine, FAST_VERIFY, { clock });
    const receiver = await startReceiver();
    try {
      const account = await t.newAccount();
      await account.client.POST('/v1/account', { body: { verify_callback_url: receiver.url } });
      const sent = await sendCode(account.client, { to: freshNumber(), channel: 'sms' });
      await t.restart();
      clock.advance(DEFAULT_VALID_FOR_MS);
      await receiver.waitFor((all) =>
        all.some((w) => w.json?.type === 'verification.expired' && w.json.data.sid === sent.sid),
      );
    } finally {
      await receiver.close();
      await t.stop();
    }
  });
});
