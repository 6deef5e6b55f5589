// Upgrading a database whose webhooks were still pending when the older version (webhooks delivered by jobs) stopped.
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { start } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { newSid } from '../../server/ids.js';
import { newWebhookSecret } from '../../server/accounts/keys.js';
import { ServerSecret } from '../../server/accounts/server-secret.js';
import { newWebhookId } from '../../server/webhooks/sign.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { ENGINES, testEnv } from '../support/server.js';
import { startReceiver } from '../support/webhook-receiver.js';

describe.each(ENGINES)('webhooks pending across the upgrade to their own queue (%s)', (engine) => {
  const cleanups = useCleanups();

  it('delivers an event recorded with its job by the older version once, signed, under its webhook-id', async () => {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    // As version 007 left it: the event row without a due time, and its delivery job beside it.
    const old = await db.open({ migrateTo: '007_hot_path_indexes' });
    const now = new Date().toISOString();
    const account = {
      sid: newSid('account', Date.now()),
      name: 'before the upgrade',
      webhook_secret: newWebhookSecret(),
      date_created: now,
      date_updated: now,
    };
    const id = newWebhookId(Date.now());
    const payload = JSON.stringify({ type: 'message.delivered', timestamp: now, data: { sid: 'SM0' } });
    await sql`insert into accounts (sid, name, webhook_secret, date_created, date_updated)
      values (${account.sid}, ${account.name}, ${account.webhook_secret}, ${now}, ${now})`.execute(old.db);
    await sql`insert into webhook_events
        (id, account_sid, resource_sid, type, url, payload, status, attempts, on_response, date_created, date_updated)
      values (${id}, ${account.sid}, 'SM0', 'message.delivered', ${`${receiver.url}/old`}, ${payload},
        'pending', 0, null, ${now}, ${now})`.execute(old.db);
    await sql`insert into jobs (kind, payload, run_at, max_attempts, ordering_key, attempts, dead, date_created)
      values ('webhook.deliver', ${JSON.stringify({ id })}, ${now}, 25, 'webhook:SM0', 0, 0, ${now})`.execute(old.db);
    await old.close();

    // Upgrading also seals the account's webhook secret (migration 009), with the server secret the server uses.
    const config = loadConfig(testEnv(engine, db.dataDir));
    const store = await db.open({ serverSecret: new ServerSecret(config).load });
    const server = await start(config, { store });
    cleanups.push(() => server.close());

    await receiver.waitFor((r) => r.length === 1);
    const [delivery] = receiver.received;
    expect(delivery.headers['webhook-id']).toBe(id);
    expect(delivery.body).toBe(payload);
    new Webhook(account.webhook_secret).verify(delivery.body, delivery.headers);
    expect(await store.db.selectFrom('jobs').select('id').where('kind', '=', 'webhook.deliver').execute()).toEqual([]);
    // Delivered, and not again: the job that used to carry it is gone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.all).toHaveLength(1);
    expect(
      await store.db
        .selectFrom('webhook_events')
        .select(['status', 'attempts'])
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({ status: 'delivered', attempts: 1 });
  });
});
