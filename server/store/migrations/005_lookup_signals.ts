// Number intelligence reads a number's recent outbound traffic: messages by sending number and time.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('messages_from_created')
    .on('messages')
    .columns(['from_number', 'date_created'])
    .execute();
}
