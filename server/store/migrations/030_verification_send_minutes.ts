// Every verification send checks its account's hourly cap (VERIFY_MAX_SENDS_PER_HOUR): counting the account's sends
// of the last hour walks up to the cap's thousand entries of an index, the dearest statement of a busy account's
// send. The account's sends per minute (a row per account and minute, bumped by each send) give an upper bound of
// that count from a few rows; only an account whose bound reaches its cap counts exactly (verify/store.ts). Each
// send is counted in the minute of its own time, so the bound holds whatever order sends are recorded in.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';
import { isoIn, systemClock } from '../../clock.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('verification_send_minutes')
    .addColumn('account_sid', 'text', (c) => c.notNull())
    // The send's time to the minute, as the first 16 characters of its ISO 8601 text ("2026-11-26T14:50").
    .addColumn('minute', 'text', (c) => c.notNull())
    .addColumn('sends', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('verification_send_minutes_pk', ['account_sid', 'minute'])
    .$call((table) => (dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  // The sends made before this version: the counts of the last hour must hold them too. Only the last day's (the
  // margin sends keep, verify/service.ts): older minutes would be read by no cap, and deleted by the first send.
  const since = isoIn(systemClock, -86_400_000);
  await sql`
    insert into verification_send_minutes (account_sid, minute, sends)
    select account_sid, substr(date_sent, 1, 16), count(*) from verification_sends where date_sent > ${since}
    group by 1, 2
  `.execute(db);
}
