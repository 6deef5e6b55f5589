// Several instances on one PostgreSQL database share the webhook queue: each event delivered once, in order per
// resource.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/db.js';
import { WebhookService } from '../../server/webhooks/service.js';
import { newWebhookSecret } from '../../server/accounts/keys.js';
import { WebhookSecretBox } from '../../server/accounts/webhook-secrets.js';
import { newSid } from '../../server/ids.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { ENGINES } from '../support/server.js';
import { startReceiver } from '../support/webhook-receiver.js';

const logger = pino({ level: 'silent' });
const CONFIG = {
  webhookTimeoutMs: 2000,
  webhookRetryBaseMs: 20,
  webhookRetryMaxMs: 100,
  webhookMaxAttempts: 10,
  webhookAllowPrivate: 'all' as const,
};
/** Webhook secrets are stored sealed with the server secret (here a test's own). */
const SECRETS = new WebhookSecretBox('s'.repeat(40));
const RESOURCES = 20;
const PER_RESOURCE = 25;

describe.each(ENGINES)('webhook delivery from several instances (%s)', (engine) => {
  const cleanups = useCleanups();

  function instance(store: Store, workerId: string) {
    const webhooks = new WebhookService(store, CONFIG, logger, SECRETS);
    const loop = webhooks.deliveryLoop({ workerId, leaseMs: 30_000, pollMs: 10 });
    cleanups.push(async () => {
      await loop.stop();
      await webhooks.close();
    });
    return { webhooks, loop };
  }

  // SQLite is one process's file: instances sharing a database are a PostgreSQL setup.
  it.runIf(engine === 'postgres')(
    'delivers each event exactly once, in order per resource, with both instances claiming',
    async () => {
      const db = freshDatabase(engine);
      cleanups.push(() => db.dispose());
      const [a, b] = [await db.open(), await db.open()];
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      // The first attempt of every fifth event fails, so later events of its resource must wait for its retry.
      const seen = new Set<string>();
      receiver.answer = (request) => {
        const { i } = request.json.data as { i: number };
        const first = !seen.has(request.headers['webhook-id']);
        seen.add(request.headers['webhook-id']);
        return first && i % 5 === 0 ? { status: 500 } : { status: 200, delayMs: 2 };
      };

      const now = new Date().toISOString();
      const accountSid = newSid('account', Date.now());
      await a.db
        .insertInto('accounts')
        .values({
          sid: accountSid,
          name: 'instances',
          webhook_secret: SECRETS.seal(accountSid, newWebhookSecret()),
          date_created: now,
          date_updated: now,
        })
        .execute();
      const recorder = new WebhookService(a, CONFIG, logger, SECRETS);
      const resources = Array.from({ length: RESOURCES }, () => newSid('message', Date.now()));
      // Recorded interleaved across resources, one transaction each, as a busy pipeline would.
      for (let i = 0; i < PER_RESOURCE; i++) {
        for (const resourceSid of resources) {
          await a.transaction((tx) =>
            recorder.enqueue(tx, {
              accountSid,
              url: `${receiver.url}/cb`,
              type: 'test.event',
              resourceSid,
              data: { resourceSid, i },
            }),
          );
        }
      }

      const holders = new Set<string>();
      const watch = setInterval(() => {
        void a.db
          .selectFrom('webhook_events')
          .select('locked_by')
          .distinct()
          .where('locked_by', 'is not', null)
          .execute()
          .then(
            (rows) => rows.forEach((r) => holders.add(r.locked_by!)),
            () => undefined, // a look still under way when the test ends
          );
      }, 5);
      try {
        instance(a, 'instance-a').loop.start();
        instance(b, 'instance-b').loop.start();
        await receiver.waitFor((r) => r.length === RESOURCES * PER_RESOURCE, 60_000);
      } finally {
        clearInterval(watch);
      }

      const ids = receiver.received.map((w) => w.headers['webhook-id']);
      expect(new Set(ids).size).toBe(ids.length);
      for (const resourceSid of resources) {
        const order = receiver.received
          .filter((w) => w.json.data.resourceSid === resourceSid)
          .map((w) => w.json.data.i);
        expect(order).toEqual(Array.from({ length: PER_RESOURCE }, (_, i) => i));
      }
      expect(holders).toEqual(new Set(['instance-a', 'instance-b']));
      // Give a stray second delivery the time to show; none comes.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(RESOURCES * PER_RESOURCE);
    },
  );
});
