// Per-account limits. On PostgreSQL, the request rate's counters live in the database so that every instance draws
// on one budget (server/http/rate-limit.ts; the columns are rate-limiter-flexible's: key, points, expire in ms).
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await db.schema
      .createTable('rate_limits')
      .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
      .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expire', 'bigint')
      .execute();
  }
}
