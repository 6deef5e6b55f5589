// What the store holds for one account, read straight from the database: for tests that check what was (not) written.
import type { TestServer } from './server.js';

/** Every row of `table` that belongs to the account. */
export function rowsOfAccount(t: TestServer, table: 'messages' | 'webhook_events', accountSid: string) {
  return t.server.services.store.db.selectFrom(table).selectAll().where('account_sid', '=', accountSid).execute();
}
