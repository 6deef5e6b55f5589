// Rotating the webhook secret: the old one keeps signing beside the new one for 24 hours (two signatures in
// webhook-signature, as Standard Webhooks allows), then only the new one signs.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer, type TestAccount } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';
import { TestClock } from '../support/clock.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(ENGINES)('webhook secret rotation (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: FAST_PIPELINE, clock });
  const receiver = useReceiver();

  /** Sends a message and returns its three status callbacks once delivered. */
  async function callbacks(account: TestAccount, from: string, path: string): Promise<ReceivedWebhook[]> {
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'rotating', status_callback: `${receiver.url}${path}` },
    });
    await waitForStatus(account.client, data!.sid, 'delivered');
    await receiver.waitFor((r) => r.filter((w) => w.path === path).length === 3);
    return receiver.received.filter((w) => w.path === path);
  }

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const before = clock.now();
    const { data: rotated, response } = await account.client.POST('/v1/account/webhook-secret/rotate');
    expect(response.status).toBe(200);
    expect(rotated!.webhook_secret).toMatch(/^whsec_/);
    expect(rotated!.webhook_secret).not.toBe(account.webhookSecret);
    const expires = Date.parse(rotated!.previous_secret_expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(DAY_MS);
    expect(expires - before).toBeLessThan(DAY_MS + 60_000);

    const oldOne = new Webhook(account.webhookSecret);
    const newOne = new Webhook(rotated!.webhook_secret);
    for (const delivery of await callbacks(account, from, '/during')) {
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
      expect(newOne.verify(delivery.body, delivery.headers)).toMatchObject({ type: expect.any(String) });
      expect(oldOne.verify(delivery.body, delivery.headers)).toMatchObject({ type: expect.any(String) });
    }

    clock.advance(DAY_MS + 1000);
    for (const delivery of await callbacks(account, from, '/after')) {
      // The timestamp is a day ahead of real time, which verify() refuses: compare with the signatures expected.
      const id = delivery.headers['webhook-id'];
      const at = new Date(Number(delivery.headers['webhook-timestamp']) * 1000);
      expect(delivery.headers['webhook-signature']).toBe(newOne.sign(id, at, delivery.body));
      expect(delivery.headers['webhook-signature']).not.toContain(oldOne.sign(id, at, delivery.body));
    }
  });

  it('keeps only the secret before the latest rotation when rotating twice', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const first = (await account.client.POST('/v1/account/webhook-secret/rotate')).data!;
    const second = (await account.client.POST('/v1/account/webhook-secret/rotate')).data!;
    const [delivery] = await callbacks(account, from, '/twice');
    const id = delivery.headers['webhook-id'];
    const at = new Date(Number(delivery.headers['webhook-timestamp']) * 1000);
    const sign = (secret: string) => new Webhook(secret).sign(id, at, delivery.body);
    expect(delivery.headers['webhook-signature']).toBe(`${sign(second.webhook_secret)} ${sign(first.webhook_secret)}`);
  });
});
