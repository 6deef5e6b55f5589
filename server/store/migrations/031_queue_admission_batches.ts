// PostgreSQL: the admission of several sends at once, for a statement that writes several API sends together
// (messages/store.ts, sendBatch). For each account, in the order of their names (so that two batches never wait for
// each other's locks): one message goes through message_queue_admit; more than one take the account's exclusive
// lock, which waits for the sends in flight to commit, and are admitted as far as the exact count leaves room. The
// shared path's bound (each send in flight adds one message) still holds: a batch adds several only under the
// exclusive lock.
//
// message_queue_admit (022) changes with it: far from the quota it took the shared lock waiting, and refused when the
// count read after the wait was no longer far from the quota, though there was room. Behind a batch's exclusive lock
// (up to 64 messages) that became likely. Now it takes the shared lock only when it is free at once; otherwise it
// takes the exclusive path, which waits and counts exactly. SQLite has a single writer: unchanged.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create or replace function message_queue_admit(account text, quota bigint) returns boolean
    language plpgsql volatile set search_path from current as $$
    declare
      in_flight integer := current_setting('max_connections')::integer;
      lock_key bigint := hashtext('queued:' || account);
      counted bigint;
    begin
      select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
      -- Two ifs: SQL does not promise to evaluate an "and" left to right, and a shared lock taken on the way to the
      -- exclusive path would wait for the others' shared locks while they wait for it.
      if counted + in_flight <= quota then
        if pg_try_advisory_xact_lock_shared(lock_key) then
          select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
          return counted + in_flight <= quota;
        end if;
      end if;
      perform pg_advisory_xact_lock(lock_key);
      select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
      return counted < quota;
    end $$
  `.execute(db);
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
