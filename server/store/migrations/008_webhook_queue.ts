// Webhook events become their own durable queue: the event row carries when its next attempt is due and who holds
// it (a lease), so a webhook no longer needs a job row beside it (an insert and a delete per webhook, three of them
// per message) nor a read of the event when its job runs. Only pending events are in the two indexes: due events
// by time, and events by resource to keep each resource's events in order. Order is the insertion order: SQLite's
// rowid (a new row's is above every existing row's) and, on PostgreSQL, a sequence column.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = () => db.schema.alterTable('webhook_events');
  await table().addColumn('run_at', 'text').execute();
  await table().addColumn('locked_by', 'text').execute();
  await table().addColumn('locked_until', 'text').execute();
  if (dialect === 'postgres') await table().addColumn('seq', 'bigserial').execute();
  // Events still pending are due at once (their retry delay starts over); their delivery jobs go.
  await db
    .updateTable('webhook_events')
    .set({ run_at: sql.ref('date_updated') })
    .execute();
  await db.deleteFrom('jobs').where('kind', '=', 'webhook.deliver').execute();
  const order = dialect === 'postgres' ? ['seq'] : [];
  const pending = sql<boolean>`status = 'pending'`;
  await db.schema
    .createIndex('webhook_events_due')
    .on('webhook_events')
    .columns(['run_at', ...order])
    .where(pending)
    .execute();
  await db.schema
    .createIndex('webhook_events_pending')
    .on('webhook_events')
    .columns(['resource_sid', ...order])
    .where(pending)
    .execute();
}
