// PostgreSQL: a message leaving the queue no longer waits for the account's count row. Migration 011's trigger
// upserted that one row for every change of a queued message, so the pipeline's hand-overs (queued → sending) and
// the account's sends took turns on it, each holding it to its commit. Now only additions go to the account's row
// (stripe 0: concurrent sends still see each other, the quota stays exact); removals go to one of 32 rows chosen by
// the connection, so they hardly ever wait. The count is the sum of the rows; a removal not yet committed is not in
// it, so a send is at worst refused a moment early, never let past the quota. SQLite has a single writer: unchanged.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table message_queue_counts add column stripe integer not null default 0`.execute(db);
  // Stripe 0 only grows: a bigint never overflows.
  await sql`alter table message_queue_counts alter column queued type bigint`.execute(db);
  await sql`alter table message_queue_counts drop constraint message_queue_counts_pkey`.execute(db);
  await sql`alter table message_queue_counts add primary key (account_sid, stripe)`.execute(db);
  await sql`
    create or replace function message_queue_count() returns trigger language plpgsql as $$
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
        insert into message_queue_counts (account_sid, stripe, queued)
        values (account, case when delta > 0 then 0 else 1 + pg_backend_pid() % 32 end, delta)
        on conflict (account_sid, stripe) do update set queued = message_queue_counts.queued + excluded.queued;
      end if;
      return null;
    end $$
  `.execute(db);
}
