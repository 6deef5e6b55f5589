// Two indexes of messages less, for the message pipeline's sake: every index costs each message an entry to write, and
// a status index one more move at each of its three status changes (measured, each index of messages costs the
// pipeline's writes a sixth to a quarter as much again as the table and its other indexes).
// - By status: the dashboard's filter (016: account, status, keyset) and the metrics' counts (019: status, direction)
//   become one index that leads with the status: the filter enters it at (status, account), and /metrics counts from
//   it alone, direction being its last column.
// - By sending number: the dashboard's filter (016: account, sending number, keyset) and the number lookups' traffic
//   signals (005: sending number, time) become one index, (sending number, time, sid): a number's messages are its
//   account's, so the filter enters it at the number and the keyset and checks the account row by row.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_account_status').execute();
  await db.schema.dropIndex('messages_status').execute();
  await db.schema
    .createIndex('messages_status_account')
    .on('messages')
    .columns(['status', 'account_sid', 'date_created', 'sid', 'direction'])
    .execute();

  await db.schema.dropIndex('messages_account_from_number').execute();
  await db.schema.dropIndex('messages_from_created').execute();
  await db.schema.createIndex('messages_from').on('messages').columns(['from_number', 'date_created', 'sid']).execute();
}
