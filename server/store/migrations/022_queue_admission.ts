// PostgreSQL: one account's sends no longer take turns on its count row. Migration 020 kept every addition on the
// account's row (stripe 0), so each send held that row from its insert to its commit and the account's sends ran one
// at a time, at the pace of round trips and a commit flush. Now additions go to the connection's stripe like the
// removals, and a send is admitted before its insert by message_queue_admit:
// - far from the quota (the committed count plus max_connections, the most transactions that can be in flight at
//   once, still within it), at once under a shared lock on the account: however the sends in flight commit, the
//   count stays within the quota;
// - near it, one at a time under the account's exclusive lock, which waits for the sends in flight to commit, so
//   the count it reads is exact.
// Each query inside the function takes its own snapshot (a volatile function at read committed), so the count read
// after a lock sees every transaction that held the lock before. SQLite has a single writer: unchanged.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
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
        values (account, 1 + pg_backend_pid() % 32, delta)
        on conflict (account_sid, stripe) do update set queued = message_queue_counts.queued + excluded.queued;
      end if;
      return null;
    end $$
  `.execute(db);
  await sql`
    create function message_queue_admit(account text, quota bigint) returns boolean
    language plpgsql volatile as $$
    declare
      in_flight integer := current_setting('max_connections')::integer;
      lock_key bigint := hashtext('queued:' || account);
      counted bigint;
    begin
      select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
      if counted + in_flight <= quota then
        perform pg_advisory_xact_lock_shared(lock_key);
        select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
        return counted + in_flight <= quota;
      end if;
      perform pg_advisory_xact_lock(lock_key);
      select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
      return counted < quota;
    end $$
  `.execute(db);
}
