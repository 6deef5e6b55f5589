// A version of each account's numbers, replaced by triggers on incoming_numbers whenever a number comes, goes or
// changes what the proxy pool ranks it by. A session creation reads this one row, and reads the account's whole
// pool (its numbers, their countries and capabilities: a third of a creation's SQLite time with 100 numbers) only
// when the version is not the one it last read it at (server/proxy/pool.ts). The version is written in the
// transaction that changes the numbers, so a creation that reads it sees the pool as its own pool read would have.
// It is a random value, not a count: a change undone (a savepoint of SQLite's group commit rolled back) cannot leave
// a value that a later change would give again, with other numbers behind it.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('number_pool_versions')
    .addColumn('account_sid', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  // Within 2^53, the integers a JavaScript number holds exactly.
  const random = dialect === 'postgres' ? 'floor(random() * 9007199254740991)::bigint' : 'random() % 9007199254740991';
  // Accounts holding numbers already get a version of their own, so that version 0 (no row) only ever means an account
  // that never held a number: two copies of a database cannot then share a pool under an account's version 0.
  await sql
    .raw(
      `insert into number_pool_versions (account_sid, version)
       select account_sid, ${random} from (select distinct account_sid from incoming_numbers) as holders`,
    )
    .execute(db);
  const bump = (account: string) => `
    insert into number_pool_versions (account_sid, version) values (${account}, ${random})
    on conflict (account_sid) do update set version = excluded.version;`;
  const columns = 'account_sid, phone_number, iso_country, capabilities';
  if (dialect === 'postgres') {
    await sql
      .raw(
        // The search path of the migration (the server's schema) is the function's, whatever the path of the
        // session whose change fires it (an operator's psql, say): its table is always the one beside incoming_numbers.
        `create function number_pool_version() returns trigger language plpgsql set search_path from current as $$
        begin
          if tg_op in ('UPDATE', 'DELETE') then ${bump('old.account_sid')} end if;
          if tg_op in ('INSERT', 'UPDATE') and (tg_op = 'INSERT' or new.account_sid <> old.account_sid) then
            ${bump('new.account_sid')}
          end if;
          return null;
        end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger incoming_numbers_pool_version after insert or delete or update of ${columns}
         on incoming_numbers for each row execute function number_pool_version()`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create trigger incoming_numbers_pool_insert after insert on incoming_numbers
       begin ${bump('new.account_sid')} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger incoming_numbers_pool_delete after delete on incoming_numbers
       begin ${bump('old.account_sid')} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger incoming_numbers_pool_update after update of ${columns} on incoming_numbers
       begin ${bump('old.account_sid')} ${bump('new.account_sid')} end`,
    )
    .execute(db);
}
