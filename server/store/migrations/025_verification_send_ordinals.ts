// Each verification send carries its ordinal among its account's sends (1, 2, 3 ...), so the hourly cap needs no
// count: the sends of the last hour are the latest ordinal less the ordinal of the last send before the hour, two
// steps into the account's index instead of a walk through up to VERIFY_MAX_SENDS_PER_HOUR of its entries.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('verification_sends').addColumn('account_seq', 'integer').execute();
  await sql`update verification_sends set account_seq = numbered.seq
    from (select id, row_number() over (partition by account_sid order by date_sent, id) as seq
          from verification_sends) as numbered
    where numbered.id = verification_sends.id`.execute(db);
  await db.schema.dropIndex('verification_sends_account').execute();
  await db.schema
    .createIndex('verification_sends_account')
    .on('verification_sends')
    .columns(['account_sid', 'date_sent', 'account_seq'])
    .execute();
}
