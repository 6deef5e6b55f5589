// At delivery, webhook URLs whose host is, or resolves to, an address the policy refuses are not called (the table
// itself and the refusal when a URL is given are in test/ssrf/).
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../server/webhooks/address-guard.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE } from '../support/messaging.js';
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

  it('allows loopback only by default outside production, and none when the operator says so', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe('loopback');
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe('none');
  });
});

describe.each(ENGINES)('private webhook targets refused (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE: 'false' } });

  // A URL given under a looser setting (WEBHOOK_ALLOW_PRIVATE changed since) is judged again when it is called.
  it.each(['127.0.0.1', 'localhost'])(
    'does not call %s stored earlier, and records the refused attempt',
    async (host) => {
      const receiver = await startReceiver();
      try {
        const account = await t.newAccount();
        const to = await giveNumber(t, account);
        const db = t.server.services.store.db;
        const smsUrl = `http://${host}:${receiver.port}/in`;
        await db.updateTable('incoming_numbers').set({ sms_url: smsUrl }).where('phone_number', '=', to).execute();
        const { data } = await account.client.POST('/v1/sandbox/inbound-messages', {
          body: { from: '+14155550123', to, body: 'x' },
        });
        const events = await waitUntil(async () => {
          const rows = await db
            .selectFrom('webhook_events')
            .selectAll()
            .where('resource_sid', '=', data!.sid)
            .execute();
          return rows.length === 1 && rows.every((e) => e.status === 'failed') && rows;
        });
        const attempts = await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('event_id', '=', events[0].id)
          .execute();
        expect(attempts).toHaveLength(1);
        expect(attempts[0].error).toMatch(/^refused: /);
        expect(receiver.all).toEqual([]);
      } finally {
        await receiver.close();
      }
    },
  );
});
