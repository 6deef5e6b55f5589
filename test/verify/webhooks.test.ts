// verification.* webhooks to the account's verify_callback_url, through the one delivery engine: signed per
// Standard Webhooks, the Verification as data, never the code.
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ENGINES, useTestServer } from '../support/server.js';
import { type ReceivedWebhook, useReceiver } from '../support/webhook-receiver.js';
import { rowsOfAccount } from '../support/rows.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode } from './flow.js';

describe.each(ENGINES)('verification webhooks (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_VERIFY });
  const receiver = useReceiver();

  const eventFor = async (sid: string, type: string): Promise<ReceivedWebhook> => {
    await receiver.waitFor((all) => all.some((w) => w.json?.type === type && w.json.data.sid === sid));
    return receiver.received.find((w) => w.json?.type === type && w.json.data.sid === sid)!;
  };

  it('keeps verify_callback_url in account settings: null by default, set, cleared with an empty string', async () => {
    const fresh = await t.newAccount('settings');
    expect((await fresh.client.GET('/v1/account')).data).toMatchObject({
      sid: fresh.sid,
      name: 'settings',
      verify_callback_url: null,
    });
    expect(
      (await fresh.client.POST('/v1/account', { body: { verify_callback_url: 'https://example.com/v' } })).data
        ?.verify_callback_url,
    ).toBe('https://example.com/v');
    expect((await fresh.client.POST('/v1/account', { body: {} })).data?.verify_callback_url).toBe(
      'https://example.com/v',
    );
    expect(
      (await fresh.client.POST('/v1/account', { body: { verify_callback_url: '' } })).data?.verify_callback_url,
    ).toBeNull();
  });

  it('posts a signed verification.approved with the verification as data and no code in it', async () => {
    await t.account.client.POST('/v1/account', { body: { verify_callback_url: `${receiver.url}/verify` } });
    const to = freshNumber();
    const sent = await sendCode(t.account.client, { to, channel: 'sms', code_length: 8 });
    const { code } = await deliveredCode(t.account.client, to);
    await check(t.account.client, { to, code });
    const hook = await eventFor(sent.sid, 'verification.approved');
    expect(hook.path).toBe('/verify');
    const verified = new Webhook(t.account.webhookSecret).verify(hook.body, hook.headers) as any;
    expect(verified.data).toMatchObject({ sid: sent.sid, to, status: 'approved', valid: true });
    expect(hook.body).not.toContain(code);
  });

  it('posts verification.canceled, verification.max_attempts_reached and verification.failed', async () => {
    await t.account.client.POST('/v1/account', { body: { verify_callback_url: `${receiver.url}/verify` } });
    const canceled = await sendCode(t.account.client, { to: freshNumber(), channel: 'sms' });
    await t.account.client.POST('/v1/verify/{sid}', {
      params: { path: { sid: canceled.sid } },
      body: { status: 'canceled' },
    });
    expect((await eventFor(canceled.sid, 'verification.canceled')).json.data.status).toBe('canceled');

    const to = freshNumber();
    const exhausted = await sendCode(t.account.client, { to, channel: 'sms' });
    const wrong = (await deliveredCode(t.account.client, to)).code === '0000' ? '1111' : '0000';
    for (let i = 0; i < 5; i++) await check(t.account.client, { to, code: wrong });
    expect((await eventFor(exhausted.sid, 'verification.max_attempts_reached')).json.data.status).toBe(
      'max_attempts_reached',
    );

    const failed = await sendCode(t.account.client, { to: '+15005550001', channel: 'sms' });
    expect((await eventFor(failed.sid, 'verification.failed')).json.data.status).toBe('failed');
  });

  it('records no webhook for an account without a verify_callback_url', async () => {
    const quiet = await t.newAccount('quiet');
    const to = freshNumber();
    await sendCode(quiet.client, { to, channel: 'sms' });
    await check(quiet.client, { to, code: (await deliveredCode(quiet.client, to)).code });
    expect(await rowsOfAccount(t, 'webhook_events', quiet.sid)).toEqual([]);
  });
});
