// The sandbox network's record of hand-overs, kept only with SANDBOX_RECORD_HANDOVERS: one row per message handed to
// it, written in the hand-over's transaction, with no key, so a message handed over twice shows as two rows (the
// cluster bench and test count them per sid).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_handovers')
    .addColumn('sid', 'text', (c) => c.notNull())
    .addColumn('date_created', 'text', (c) => c.notNull())
    .execute();
}
