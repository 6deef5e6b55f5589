// Poison work ends: jobs and webhook events count the claims not followed by an outcome (the instance running them
// stopped before their lease ran out), so that work which kills its process every time it runs is given up after
// JOB_MAX_CLAIMS claims instead of being claimed forever. Dead work is counted by /metrics: the partial indexes
// hold only the dead rows, so counting them reads no more than they are.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['jobs', 'webhook_events']) {
    await db.schema
      .alterTable(table)
      .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema.createIndex('jobs_dead').on('jobs').column('kind').where(sql.ref('dead'), '=', 1).execute();
  await db.schema
    .createIndex('webhook_events_dead')
    .on('webhook_events')
    .column('type')
    .where(sql<boolean>`status = 'dead'`)
    .execute();
}
