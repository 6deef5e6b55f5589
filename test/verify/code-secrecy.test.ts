// Where a code may exist: nowhere in clear. Verifications keep an HMAC (and, while pending, a sealed copy for
// re-sends), the sandbox handset a sealed copy while the verification is pending; responses, webhooks, jobs and the
// message log never hold it. (test/secrets/at-rest.test.ts reads the raw database files.)
import { describe, expect, it, beforeEach } from 'vitest';
import { createHmac } from 'node:crypto';
import { ENGINES, startTestServer, useTestServer } from '../support/server.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber } from './flow.js';

const TABLES_WITHOUT_CODES = [
  'verifications',
  'verification_sends',
  'messages',
  'webhook_events',
  'webhook_attempts',
  'jobs',
  'idempotency_keys',
  'account_settings',
] as const;

describe.each(ENGINES)('where verification codes are kept (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_VERIFY });
  const receiver = useReceiver();
  beforeEach(async () => {
    await t.account.client.POST('/v1/account', { body: { verify_callback_url: receiver.url } });
  });

  async function tableText(): Promise<string> {
    const db = t.server.services.store.db as any;
    const dumps = await Promise.all(TABLES_WITHOUT_CODES.map((table) => db.selectFrom(table).selectAll().execute()));
    return JSON.stringify(dumps);
  }

  it('stores the code only as a server-secret HMAC, and drops the sealed copy when the verification ends', async () => {
    const to = freshNumber();
    const responses: unknown[] = [];
    const send = await t.account.client.POST('/v1/verify/send', {
      body: { to, channel: 'sms', code_length: 8 },
      params: { header: { 'Idempotency-Key': `k-${to}` } },
    });
    responses.push(send.data);
    const sid = send.data!.sid;
    const { code } = await deliveredCode(t.account.client, to);
    const db = t.server.services.store.db;
    const pending = await db.selectFrom('verifications').selectAll().where('sid', '=', sid).executeTakeFirstOrThrow();
    expect(pending.code_hash).toBe(
      createHmac('sha256', t.server.services.secretKey).update(`${sid}:${code}`).digest('base64'),
    );
    expect(pending.code_sealed).not.toBeNull();
    expect(pending.code_sealed).not.toContain(code);

    responses.push((await check(t.account.client, { to, code: code.startsWith('0') ? '11111111' : '00000000' })).data);
    responses.push((await check(t.account.client, { to, code })).data);
    responses.push((await t.account.client.GET('/v1/verify/{sid}', { params: { path: { sid } } })).data);
    await receiver.waitFor((all) => all.some((w) => w.json?.type === 'verification.approved'));

    const ended = await db
      .selectFrom('verifications')
      .select(['status', 'code_sealed'])
      .where('sid', '=', sid)
      .executeTakeFirstOrThrow();
    expect(ended).toEqual({ status: 'approved', code_sealed: null });
    expect(JSON.stringify(responses)).not.toContain(code);
    expect(receiver.all.map((w) => w.body).join('\n')).not.toContain(code);
    expect(await tableText()).not.toContain(code);
    // The sandbox handset forgot it once the verification ended.
    const handset = await db.selectFrom('sandbox_otp_deliveries').selectAll().where('to_number', '=', to).execute();
    expect(handset).toEqual([]);
  });

  it('keeps no code in clear for a re-send or a failed delivery either', async () => {
    const to = freshNumber();
    await t.account.client.POST('/v1/verify/send', { body: { to, channel: 'sms', code_length: 8 } });
    await t.account.client.POST('/v1/verify/send', { body: { to, channel: 'whatsapp' } });
    const { code } = await deliveredCode(t.account.client, to);
    await t.account.client.POST('/v1/verify/send', { body: { to: '+15005550003', channel: 'sms', code_length: 8 } });
    expect(await tableText()).not.toContain(code);
  });
});

describe.each(ENGINES)('re-sending after the server secret changed (%s)', (engine) => {
  it('cancels the pending verification and starts a new one, since its code can no longer be repeated', async () => {
    const t = await startTestServer(engine, { ...FAST_VERIFY, SECRET_KEY: 'a'.repeat(40) });
    try {
      const account = await t.newAccount();
      const to = freshNumber();
      const first = await account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' } });
      // A change of secret is a start with the old one as SECRET_KEY_PREVIOUS (see test/secrets/server-secret.test.ts).
      t.config.secretKey = 'b'.repeat(40);
      t.config.secretKeyPrevious = 'a'.repeat(40);
      await t.restart();
      const second = await account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' } });
      expect(second.response.status).toBe(201);
      expect(second.data?.sid).not.toBe(first.data?.sid);
      expect(
        (await account.client.GET('/v1/verify/{sid}', { params: { path: { sid: first.data!.sid } } })).data?.status,
      ).toBe('canceled');
      const { code } = await deliveredCode(account.client, to);
      expect((await check(account.client, { to, code })).data?.status).toBe('approved');
    } finally {
      await t.stop();
    }
  });
});
