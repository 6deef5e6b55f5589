// One index of verification sends less, for every send's sake (each index costs a send an entry to write). The
// per-number send window (006: account, number, time) and the number lookups' traffic signals (006: number, time)
// become one index, (number, time, account): a number's sends in the last ten minutes are few whatever the account,
// so the window enters it at the number and the time and checks the account in the index itself.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('verification_sends_to').execute();
  await db.schema.dropIndex('verification_sends_number').execute();
  await db.schema
    .createIndex('verification_sends_number')
    .on('verification_sends')
    .columns(['to_number', 'date_sent', 'account_sid'])
    .execute();
}
