// Quotas count an account's rows and then add one; two requests of one account must not both count before either
// adds. A lock per account and quota, held until the transaction ends, makes them take turns.
import { sql } from 'kysely';
import type { Dialect, Tx } from './db.js';

/**
 * PostgreSQL: a transaction-scoped advisory lock on (quota, account). SQLite: nothing to do, since its transactions
 * already run one at a time on the file's one connection.
 */
export async function lockAccountQuota(tx: Tx, dialect: Dialect, quota: string, accountSid: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtext(${`${quota}:${accountSid}`}))`.execute(tx.db);
}
