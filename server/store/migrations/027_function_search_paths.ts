// PostgreSQL: the functions of 011, 014 and 022 (the queued-message count's trigger, the open proxy sessions' count's
// trigger, the queue's admission) name their tables without a schema, so they found them through the search path of
// the session that fired or called them: a change made from another path (an operator's psql) failed, or reached a
// table of the same name elsewhere. Each now runs with the search path of this migration, the server's schema, like
// the functions of 025 and 026 from their creation.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const fn of ['message_queue_count()', 'proxy_open_count()', 'message_queue_admit(text, bigint)'])
    await sql.raw(`alter function ${fn} set search_path from current`).execute(db);
}
