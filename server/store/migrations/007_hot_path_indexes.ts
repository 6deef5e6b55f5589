// Indexes the message pipeline paid for on every write without using them. Webhook events were indexed by
// resource and time, which no query reads (events of one resource are kept in order by their jobs' ordering key),
// and each event's entry landed on a random page of it (resource sids are random): measured, a quarter of the
// cost of inserting an event, and one more page to write at nearly every commit. The jobs' ordering-key index
// held an entry for every job, though only keyed jobs (webhooks) are looked up by key: it now holds those only.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_events_resource').execute();
  await db.schema.dropIndex('jobs_ordering').execute();
  await db.schema
    .createIndex('jobs_ordering')
    .on('jobs')
    .columns(['ordering_key', 'id'])
    .where(sql.ref('ordering_key'), 'is not', null)
    .execute();
}
