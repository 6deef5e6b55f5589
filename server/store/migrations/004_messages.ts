// Messages, the webhook delivery log (events and every attempt), idempotency records and the sandbox carrier's send
// pacing.
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';
import { autoId } from './columns.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('media_url', 'text', (c) => c.notNull())
    .addColumn('num_media', 'integer', (c) => c.notNull())
    .addColumn('num_segments', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('price', 'double precision')
    .addColumn('price_unit', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('send_at', 'text')
    .addColumn('validity_period', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('status_callback', 'text')
    .addColumn('origin_sid', 'text')
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .addColumn('date_sent', 'text')
    .execute();
  await db.schema
    .createIndex('messages_account')
    .on('messages')
    .columns(['account_sid', 'date_created', 'sid'])
    .execute();

  // One row per webhook to send; its id is the `webhook-id` header, stable across retries.
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('resource_sid', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('on_response', 'text')
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_events_resource')
    .on('webhook_events')
    .columns(['resource_sid', 'date_created'])
    .execute();

  await autoId(db.schema.createTable('webhook_attempts'), dialect)
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('date_attempted', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_event')
    .on('webhook_attempts')
    .columns(['event_id', 'attempt'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_sid', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_sid', 'operation_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('date_created').execute();

  // The sandbox network's pacing: when each sending number may next hand a message over.
  await db.schema
    .createTable('carrier_send_slots')
    .addColumn('from_number', 'text', (c) => c.primaryKey())
    .addColumn('next_at', 'text', (c) => c.notNull())
    .execute();
}
