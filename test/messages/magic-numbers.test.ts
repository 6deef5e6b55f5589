// The sandbox's magic destination numbers, as documented in the spec's Messages tag and docs/messages.md.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';

describe.each(ENGINES)('sandbox magic destination numbers (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  let account: TestAccount;
  let from: string;
  const receiver = useReceiver();
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  it.each([
    ['+15005550001', 'failed', 'invalid_destination', ['sending', 'failed'], false],
    ['+15005550002', 'undelivered', 'unreachable_destination', ['sending', 'sent', 'undelivered'], true],
    ['+15005550003', 'failed', 'carrier_rejected', ['sending', 'failed'], false],
    ['+15005550004', 'delivered', null, ['sending', 'sent', 'delivered'], true],
    ['+15005550005', 'read', null, ['sending', 'sent', 'delivered', 'read'], true],
    ['+14155550123', 'delivered', null, ['sending', 'sent', 'delivered'], true],
    ['+1234567', 'failed', 'invalid_destination', ['sending', 'failed'], false],
  ])(
    'a message to %s ends %s (error_code %s), with a callback per status',
    async (to, status, errorCode, callbacks, priced) => {
      const { data } = await account.client.POST('/v1/messages', {
        body: { from, to, body: 'magic', status_callback: `${receiver.url}/${to}` },
      });
      const final = await waitForStatus(account.client, data!.sid, status);
      expect(final.error_code).toBe(errorCode);
      expect(final.error_message === null).toBe(errorCode === null);
      expect(final.price === null).toBe(!priced);
      await receiver.waitFor((r) => r.filter((w) => w.json.data.sid === data!.sid).length === callbacks.length);
      expect(receiver.received.filter((w) => w.json.data.sid === data!.sid).map((w) => w.json.type)).toEqual(
        callbacks.map((s) => `message.${s}`),
      );
    },
  );

  it('delivers to +15005550004 only after the slow delay', async () => {
    const slow = await account.client.POST('/v1/messages', { body: { from, to: '+15005550004', body: 'slow' } });
    const sent = await waitForStatus(account.client, slow.data!.sid, 'sent');
    const delivered = await waitForStatus(account.client, slow.data!.sid, 'delivered');
    // SANDBOX_SLOW_DELIVERY_MS is 800 in these tests, against 30 for normal deliveries.
    expect(Date.parse(delivered.date_updated) - Date.parse(sent.date_sent!)).toBeGreaterThanOrEqual(750);
  });
});
