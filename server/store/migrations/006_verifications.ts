// Verifications (codes kept only as keyed hashes), every send of a code, account settings (the verify callback
// URL) and the sandbox network's record of the last code it delivered to each simulated handset.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';
import { autoId } from './columns.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('verifications')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('custom_message', 'text')
    .addColumn('code_length', 'integer', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('code_sealed', 'text')
    .addColumn('check_attempts', 'integer', (c) => c.notNull())
    .addColumn('valid_for', 'integer', (c) => c.notNull())
    .addColumn('line_type', 'text')
    .addColumn('carrier_name', 'text')
    .addColumn('date_expires', 'text', (c) => c.notNull())
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('verifications_to')
    .on('verifications')
    .columns(['account_sid', 'to_number', 'date_created'])
    .execute();
  // At most one pending verification per account and number: a concurrent second send finds the first.
  await db.schema
    .createIndex('verifications_one_pending')
    .on('verifications')
    .columns(['account_sid', 'to_number'])
    .unique()
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();

  await autoId(db.schema.createTable('verification_sends'), dialect)
    .addColumn('account_sid', 'text', (c) => c.notNull())
    .addColumn('verification_sid', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('date_sent', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('verification_sends_to')
    .on('verification_sends')
    .columns(['account_sid', 'to_number', 'date_sent'])
    .execute();
  await db.schema
    .createIndex('verification_sends_account')
    .on('verification_sends')
    .columns(['account_sid', 'date_sent'])
    .execute();
  await db.schema
    .createIndex('verification_sends_verification')
    .on('verification_sends')
    .columns(['verification_sid', 'id'])
    .execute();
  await db.schema
    .createIndex('verification_sends_number')
    .on('verification_sends')
    .columns(['to_number', 'date_sent'])
    .execute();

  await db.schema
    .createTable('account_settings')
    .addColumn('account_sid', 'text', (c) => c.primaryKey().references('accounts.sid'))
    .addColumn('verify_callback_url', 'text')
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();

  // Sandbox only: what the simulated handset last received, per account and number (see server/carrier/sandbox-otp.ts).
  await db.schema
    .createTable('sandbox_otp_deliveries')
    .addColumn('account_sid', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('verification_sid', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('date_sent', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sandbox_otp_deliveries_pk', ['account_sid', 'to_number'])
    .execute();
}
