// Indexes for the gauges /metrics reads at each scrape (server/system/metrics.ts): messages, calls and verifications
// by status, and webhook events given up, are counted from an index alone instead of a scan of their tables. The
// keys are statuses, so a status change moves an entry between a few hot pages rather than to a random one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('messages_status').on('messages').columns(['status', 'direction']).execute();
  await db.schema.createIndex('calls_status').on('calls').column('status').execute();
  await db.schema.createIndex('verifications_status').on('verifications').column('status').execute();
  // Like webhook_events_dead (010): only the rows counted.
  await db.schema
    .createIndex('webhook_events_failed')
    .on('webhook_events')
    .column('type')
    .where(sql<boolean>`status = 'failed'`)
    .execute();
}
