// A number search remembers which of its candidates were free (numbers/service.ts) for as long as no number was
// provisioned or released anywhere: one row's version, bumped by triggers on incoming_numbers in the transaction
// of the change, tells every instance when that was. On PostgreSQL the bump locks the row until the provisioning
// or releasing transaction ends, so such transactions commit one after another (they are few and short); a
// search reads the version before the numbers it checks, so what it remembers is never older than its version.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('number_holdings')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into number_holdings (id, version) values (1, 0)`.execute(db);
  const bump = 'update number_holdings set version = version + 1 where id = 1;';
  if (dialect === 'postgres') {
    await sql
      .raw(
        `create function number_holdings_bump() returns trigger language plpgsql set search_path from current as $$
         begin ${bump} return null; end $$`,
      )
      .execute(db);
    await sql`
      create trigger incoming_numbers_holdings after insert or delete or update of phone_number on incoming_numbers
      for each row execute function number_holdings_bump()
    `.execute(db);
    return;
  }
  for (const [name, event] of [
    ['insert', 'insert'],
    ['delete', 'delete'],
    ['update', 'update of phone_number'],
  ])
    await sql
      .raw(`create trigger incoming_numbers_holdings_${name} after ${event} on incoming_numbers begin ${bump} end`)
      .execute(db);
}
