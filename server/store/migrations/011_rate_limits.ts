// Per-account limits.
// - On PostgreSQL, the request rate's counters live in the database so that every instance draws on one budget
//   (server/http/rate-limit.ts; the columns are rate-limiter-flexible's: key, points, expire in ms).
// - The MAX_QUEUED_MESSAGES quota reads how many messages of an account are `queued` from one row, which triggers
//   on messages keep, rather than counting up to 100,000 rows on every send. On PostgreSQL the trigger's upsert
//   locks the account's row until the sending transaction ends, so concurrent sends of one account see each other's
//   count and the quota is exact.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await db.schema
      .createTable('rate_limits')
      .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
      .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expire', 'bigint')
      .execute();
  }
  await db.schema
    .createTable('message_queue_counts')
    .addColumn('account_sid', 'text', (c) => c.primaryKey())
    .addColumn('queued', 'integer', (c) => c.notNull())
    .execute();
  await sql`
    insert into message_queue_counts (account_sid, queued)
    select account_sid, count(*) from messages where status = 'queued' group by account_sid
  `.execute(db);
  if (dialect === 'postgres') {
    await sql`
      create function message_queue_count() returns trigger language plpgsql as $$
      declare
        delta integer := 0;
        account text;
      begin
        if tg_op in ('INSERT', 'UPDATE') and new.status = 'queued' then
          delta := delta + 1;
          account := new.account_sid;
        end if;
        if tg_op in ('UPDATE', 'DELETE') and old.status = 'queued' then
          delta := delta - 1;
          account := old.account_sid;
        end if;
        if delta <> 0 then
          insert into message_queue_counts (account_sid, queued) values (account, delta)
          on conflict (account_sid) do update set queued = message_queue_counts.queued + excluded.queued;
        end if;
        return null;
      end $$
    `.execute(db);
    await sql`
      create trigger messages_queue_count after insert or update of status or delete on messages
      for each row execute function message_queue_count()
    `.execute(db);
    return;
  }
  const bump = (account: string, delta: string) => `
    insert into message_queue_counts (account_sid, queued) values (${account}, ${delta})
    on conflict (account_sid) do update set queued = queued + excluded.queued;`;
  await sql
    .raw(
      `create trigger messages_queued_insert after insert on messages when new.status = 'queued'
       begin ${bump('new.account_sid', '1')} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger messages_queued_update after update of status on messages
       when (old.status = 'queued') <> (new.status = 'queued')
       begin ${bump('new.account_sid', "case when new.status = 'queued' then 1 else -1 end")} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger messages_queued_delete after delete on messages when old.status = 'queued'
       begin ${bump('old.account_sid', '-1')} end`,
    )
    .execute(db);
}
