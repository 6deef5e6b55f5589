// Calls (each leg a row, with the state of its running instructions) and their recordings (audio kept in the
// database, so every instance can serve it).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('calls')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('parent_call_sid', 'text')
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('answered_by', 'text')
    .addColumn('url', 'text')
    .addColumn('method', 'text')
    .addColumn('twiml', 'text')
    .addColumn('status_callback', 'text')
    .addColumn('status_callback_events', 'text')
    .addColumn('recording_status_callback', 'text')
    .addColumn('record', 'integer', (c) => c.notNull())
    .addColumn('recording_channels', 'integer', (c) => c.notNull())
    .addColumn('timeout', 'integer', (c) => c.notNull())
    .addColumn('time_limit', 'integer', (c) => c.notNull())
    .addColumn('duration', 'integer')
    .addColumn('start_time', 'text')
    .addColumn('end_time', 'text')
    .addColumn('price', 'double precision')
    .addColumn('price_unit', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('peer_sid', 'text')
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('machine', 'text')
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('calls_account').on('calls').columns(['account_sid', 'date_created', 'sid']).execute();
  // The legs a call's `<Dial>` placed, found by their parent: every leg's end looks for its live children, which
  // without it read the whole table, machine state and all. Partial: only Dial legs have a parent.
  await db.schema
    .createIndex('calls_parent')
    .on('calls')
    .column('parent_call_sid')
    .where(sql.ref('parent_call_sid'), 'is not', null)
    .execute();

  await db.schema
    .createTable('recordings')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('call_sid', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('channels', 'integer', (c) => c.notNull())
    .addColumn('duration', 'integer')
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('price', 'double precision')
    .addColumn('price_unit', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('status_callback', 'text')
    .addColumn('segments', 'text')
    .addColumn('audio', dialect === 'postgres' ? 'bytea' : 'blob')
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recordings_call')
    .on('recordings')
    .columns(['call_sid', 'date_created', 'sid'])
    .execute();
}
