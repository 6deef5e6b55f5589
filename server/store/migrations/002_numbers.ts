// Provisioned (incoming) phone numbers and the addresses that regulated countries require.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('addresses')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('friendly_name', 'text')
    .addColumn('customer_name', 'text', (c) => c.notNull())
    .addColumn('street', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('postal_code', 'text', (c) => c.notNull())
    .addColumn('iso_country', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rejection_reason', 'text')
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('addresses_account').on('addresses').columns(['account_sid', 'date_created']).execute();

  // One row per number held by an account; the unique phone_number is what makes "exactly one wins" hold.
  await db.schema
    .createTable('incoming_numbers')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('phone_number', 'text', (c) => c.notNull().unique())
    .addColumn('friendly_name', 'text', (c) => c.notNull())
    .addColumn('sms_url', 'text')
    .addColumn('sms_method', 'text', (c) => c.notNull())
    .addColumn('voice_url', 'text')
    .addColumn('voice_method', 'text', (c) => c.notNull())
    .addColumn('status_callback', 'text')
    .addColumn('capabilities', 'text', (c) => c.notNull())
    .addColumn('iso_country', 'text', (c) => c.notNull())
    .addColumn('number_type', 'text', (c) => c.notNull())
    .addColumn('address_sid', 'text', (c) => c.references('addresses.sid'))
    .addColumn('address_requirements', 'text', (c) => c.notNull())
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('incoming_numbers_account')
    .on('incoming_numbers')
    .columns(['account_sid', 'date_created'])
    .execute();
}
