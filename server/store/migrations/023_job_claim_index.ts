// PostgreSQL: a claim of jobs reads the due jobs in the order it takes them (run_at, id) and stops at its batch's
// last. With 001's index (dead, run_at), which does not give that order, the planner (its estimates far below a
// backlog's size: statistics lag a queue's churn) read every due job and every row version the pipeline's updates
// left behind, with a bitmap scan, and sorted them: about 25,000 index entries per claim under a backlog of 8,000
// dispatch jobs, against about 700 through this index (see docs/performance.md). SQLite: unchanged.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema
    .createIndex('jobs_claim')
    .on('jobs')
    .columns(['run_at', 'id'])
    .where(sql.ref('dead'), '=', 0)
    .execute();
  await db.schema.dropIndex('jobs_due').execute();
}
