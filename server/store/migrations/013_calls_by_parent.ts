// The legs a call's `<Dial>` placed, found by their parent: every leg's end looks for its live children, and
// without an index that read the whole calls table, machine state and all (a 1,000-call bench spent a tenth of
// its main thread there, growing with the table). Partial: only Dial legs have a parent.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('calls_parent')
    .on('calls')
    .column('parent_call_sid')
    .where(sql.ref('parent_call_sid'), 'is not', null)
    .execute();
}
