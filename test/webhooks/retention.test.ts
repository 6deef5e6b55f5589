// The retention job: ended webhook events (with their attempts) go after WEBHOOK_RETENTION_DAYS, idempotency
// records after 24 h, a chunk at a time; pending events and recent records stay; the job comes back hourly.
// The records are made over 40 days of the store's TestClock, which the job reads its now from.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AccountService } from '../../server/accounts/service.js';
import { WebhookSecretBox } from '../../server/accounts/webhook-secrets.js';
import { JobWorker } from '../../server/jobs/worker.js';
import { RETENTION_JOB, Retention } from '../../server/system/retention.js';
import { newWebhookId } from '../../server/webhooks/sign.js';
import type { Store } from '../../server/store/db.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { waitUntil } from '../support/wait.js';
import { TestClock } from '../support/clock.js';

const logger = pino({ level: 'silent' });
const DAY = 86_400_000;
const HOUR = 3_600_000;

describe.each(ENGINES)('retention of webhook events and idempotency records (%s)', (engine) => {
  const cleanups = useCleanups();

  async function addEvents(
    store: Store,
    accountSid: string,
    count: number,
    at: number,
    status: 'delivered' | 'failed' | 'pending',
  ): Promise<string[]> {
    const ids = Array.from({ length: count }, () => newWebhookId(at));
    const iso = new Date(at).toISOString();
    for (let i = 0; i < ids.length; i += 200) {
      const some = ids.slice(i, i + 200);
      await store.db
        .insertInto('webhook_events')
        .values(
          some.map((id) => ({
            id,
            account_sid: accountSid,
            resource_sid: 'SM1',
            type: 'message.sent',
            url: 'http://127.0.0.1:9/',
            payload: '{}',
            status,
            attempts: 1,
            on_response: null,
            run_at: iso,
            date_created: iso,
            date_updated: iso,
          })),
        )
        .execute();
      await store.db
        .insertInto('webhook_attempts')
        .values(
          some.map((id) => ({
            event_id: id,
            attempt: 1,
            date_attempted: iso,
            duration_ms: 3,
            response_status: 204,
            error: null,
          })),
        )
        .execute();
    }
    return ids;
  }

  async function addKeys(store: Store, accountSid: string, count: number, at: number): Promise<void> {
    const iso = new Date(at).toISOString();
    for (let i = 0; i < count; i += 200) {
      const rows = Array.from({ length: Math.min(200, count - i) }, (_, j) => ({
        account_sid: accountSid,
        operation_id: 'createMessage',
        idempotency_key: `k-${at}-${i + j}`,
        request_hash: 'h',
        state: 'done' as const,
        response_status: 201,
        response_body: '{}',
        locked_until: iso,
        date_created: iso,
      }));
      await store.db.insertInto('idempotency_keys').values(rows).execute();
    }
  }

  it('drops ended events past retention, their attempts and expired idempotency records; back in an hour', async () => {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const clock = new TestClock();
    const store = await db.open({ clock });
    const { account } = await new AccountService(store, new WebhookSecretBox('s'.repeat(40))).createAccount(
      'retention',
    );
    // Made 40, 31 and 29 days before the job runs; more than two chunks of old ones, so that the job has to go on
    // after the first.
    await addEvents(store, account.sid, 20, clock.now(), 'failed');
    clock.advance(9 * DAY);
    await addEvents(store, account.sid, 1100, clock.now(), 'delivered');
    const oldPending = await addEvents(store, account.sid, 1, clock.now(), 'pending');
    clock.advance(2 * DAY);
    const recent = await addEvents(store, account.sid, 5, clock.now(), 'delivered');
    // Idempotency records made 25 and 23 hours before.
    clock.advance(29 * DAY - 25 * HOUR);
    await addKeys(store, account.sid, 1200, clock.now());
    clock.advance(2 * HOUR);
    await addKeys(store, account.sid, 3, clock.now());
    clock.advance(23 * HOUR);
    const now = clock.now();

    const retention = new Retention(store, { webhookRetentionDays: 30 }, logger);
    await retention.schedule();
    await retention.schedule(); // a second instance starting: still one job
    expect(
      await store.db.selectFrom('jobs').select('id').where('kind', '=', RETENTION_JOB.kind).execute(),
    ).toHaveLength(1);
    const worker = new JobWorker(store, retention.jobHandlers(), logger, { pollMs: 10 });
    worker.start();
    cleanups.push(() => worker.stop());

    const job = () =>
      store.db.selectFrom('jobs').selectAll().where('kind', '=', RETENTION_JOB.kind).executeTakeFirstOrThrow();
    await waitUntil(async () => Date.parse((await job()).run_at) > now + 3_000_000, 20_000);
    expect(Date.parse((await job()).run_at)).toBeLessThanOrEqual(clock.now() + HOUR);

    const events = (await store.db.selectFrom('webhook_events').select('id').execute()).map((r) => r.id).sort();
    expect(events).toEqual([...oldPending, ...recent].sort());
    const attempts = (await store.db.selectFrom('webhook_attempts').select('event_id').execute())
      .map((r) => r.event_id)
      .sort();
    expect(attempts).toEqual([...oldPending, ...recent].sort());
    const keys = await store.db.selectFrom('idempotency_keys').select('date_created').execute();
    expect(keys).toHaveLength(3);
    expect(keys.every((k) => Date.parse(k.date_created) > now - 24 * HOUR)).toBe(true);
  });
});
