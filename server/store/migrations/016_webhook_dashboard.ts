// What the dashboard needs: a rotated webhook secret kept (sealed) beside the new one until it expires, the first
// bytes of each webhook attempt's answer, and the indexes that let the logs filter an account's records and walk
// them newest first without a scan (each filter a prefix of its own index, ending in the keyset's columns).
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('previous_webhook_secret', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('previous_webhook_secret_expires', 'text').execute();
  await db.schema.alterTable('webhook_attempts').addColumn('response_excerpt', 'text').execute();

  for (const column of ['status', 'to_number', 'from_number']) {
    await db.schema
      .createIndex(`messages_account_${column}`)
      .on('messages')
      .columns(['account_sid', column, 'date_created', 'sid'])
      .execute();
  }
  await db.schema
    .createIndex('verifications_account')
    .on('verifications')
    .columns(['account_sid', 'date_created', 'sid'])
    .execute();
}
