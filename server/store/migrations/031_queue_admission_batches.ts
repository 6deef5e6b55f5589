// PostgreSQL: the admission of several sends at once, for a statement that writes several API sends together
// (messages/store.ts, sendBatch). For each account, in the order of their names (so that two batches never wait for
// each other's locks): one message goes through message_queue_admit (022) unchanged; more than one take the
// account's exclusive lock, which waits for the sends in flight to commit, and are admitted as far as the exact count
// leaves room. The shared path's bound (each send in flight adds one message) still holds: a batch adds several only
// under the exclusive lock. SQLite has a single writer: unchanged.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create function message_queue_admit_many(accounts text[], wanted integer[], quota bigint)
    returns table (account text, admitted integer)
    language plpgsql volatile set search_path from current as $$
    declare
      i integer;
      counted bigint;
    begin
      for i in select s.i from generate_subscripts(accounts, 1) s(i) order by accounts[s.i] loop
        account := accounts[i];
        if wanted[i] = 1 then
          admitted := message_queue_admit(account, quota)::integer;
        else
          perform pg_advisory_xact_lock(hashtext('queued:' || account));
          select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
          admitted := greatest(0, least(wanted[i], quota - counted));
        end if;
        return next;
      end loop;
    end $$
  `.execute(db);
}
