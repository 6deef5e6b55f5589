// Outside the sandbox's default, webhook URLs on private or loopback addresses are refused.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../server/webhooks/address-guard.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { loadConfig } from '../../server/config.js';

describe('which addresses count as private', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
  ])('%s is private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  it('allows them by default with the sandbox carrier, and not when the operator says so', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe(false);
  });
});

describe.each(ENGINES)('private webhook targets refused (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE: 'false' } });

  it.each(['127.0.0.1', 'localhost'])('does not call %s, and records the refused attempt', async (host) => {
    const receiver = await startReceiver();
    try {
      const account = await t.newAccount();
      const from = await giveNumber(t, account);
      const { data } = await account.client.POST('/v1/messages', {
        body: { from, to: '+14155550123', body: 'x', status_callback: `http://${host}:${receiver.port}/cb` },
      });
      await waitForStatus(account.client, data!.sid, 'delivered');
      const db = t.server.services.store.db;
      const events = await waitUntil(async () => {
        const rows = await db.selectFrom('webhook_events').selectAll().where('resource_sid', '=', data!.sid).execute();
        return rows.length === 3 && rows.every((e) => e.status === 'failed') && rows;
      });
      for (const event of events) {
        const attempts = await db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', event.id).execute();
        expect(attempts).toHaveLength(1);
        expect(attempts[0].error).toMatch(/refused/);
      }
      expect(receiver.all).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
