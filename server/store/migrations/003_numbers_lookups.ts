// Indexes for the regulatory checks: an account's verified addresses by country, and the numbers using an address.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('addresses_account_country')
    .on('addresses')
    .columns(['account_sid', 'iso_country', 'status'])
    .execute();
  await db.schema.createIndex('incoming_numbers_address').on('incoming_numbers').columns(['address_sid']).execute();
}
