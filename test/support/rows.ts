// What the store holds for one account, read straight from the database: for tests that check what was (not) written.
import type { TestServer } from './server.js';

/** Every row of `table` that belongs to the account. */
export function rowsOfAccount(t: TestServer, table: 'messages' | 'webhook_events', accountSid: string) {
  return t.server.services.store.db.selectFrom(table).selectAll().where('account_sid', '=', accountSid).execute();
}

/**
 * Every row of every table with an `account_sid` column that belongs to the account, and the account's own row, by
 * table name. Tables are found by introspection, so a table added later is compared too; `except` leaves out tables
 * that any request legitimately touches (request counters).
 */
export async function stateOfAccount(
  t: TestServer,
  accountSid: string,
  except: readonly string[] = [],
): Promise<Record<string, unknown[]>> {
  const db = t.server.services.store.db;
  const named = (await db.introspection.getTables())
    .filter((table) => table.columns.some((c) => c.name === 'account_sid'))
    .map((table) => table.name);
  const tables = named.filter((name) => !except.includes(name)).sort();
  const state: Record<string, unknown[]> = {};
  for (const table of tables) {
    const rows: unknown[] = await (db as any)
      .selectFrom(table)
      .selectAll()
      .where('account_sid', '=', accountSid)
      .execute();
    // Unordered reads: sorted, so two reads of the same rows compare equal.
    state[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  state.accounts = await db.selectFrom('accounts').selectAll().where('sid', '=', accountSid).execute();
  return state;
}
