// Webhooks are signed per Standard Webhooks with the account's secret: the standardwebhooks package verifies them.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';

describe.each(ENGINES)('webhook signatures (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  const receiver = useReceiver();

  it('signs every status callback so standardwebhooks verifies it with the account secret and no other', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'signed', status_callback: `${receiver.url}/signed` },
    });
    await waitForStatus(account.client, data!.sid, 'delivered');
    await receiver.waitFor((r) => r.filter((w) => w.path === '/signed').length === 3);

    const verifier = new Webhook(account.webhookSecret);
    const other = new Webhook((await t.newAccount()).webhookSecret);
    for (const delivery of receiver.received.filter((w) => w.path === '/signed')) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      const payload = verifier.verify(delivery.body, delivery.headers) as any;
      expect(payload).toMatchObject({
        type: expect.stringMatching(/^message\./),
        timestamp: expect.any(String),
        data: { sid: data!.sid },
      });
      expect(() => other.verify(delivery.body, delivery.headers)).toThrow();
      expect(() => verifier.verify(delivery.body.replace('message.', 'massage.'), delivery.headers)).toThrow();
    }
  });

  it('gives each event its own webhook-id', async () => {
    const ids = receiver.received.map((w) => w.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
