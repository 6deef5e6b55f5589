// PostgreSQL: message_queue_admit (031) refused a send with room left when the account's count grew past "far from
// the quota" between its first read and its read under the shared lock (other sends committed meanwhile): up to
// max_connections - 1 places could still be free. It cannot take the exclusive path then, holding the shared lock
// (two sends doing so would wait for each other), and a transaction's advisory lock is not released before its end.
// Now the shared lock is taken inside a block that is rolled back when the count read under it is no longer far:
// rolling back to the block's start releases the lock taken in it, and the send counts exactly on the exclusive
// path. Entering such a block starts a subtransaction, which assigns no transaction id here (it writes nothing).
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
        begin
          if pg_try_advisory_xact_lock_shared(lock_key) then
            select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
            if counted + in_flight <= quota then
              return true;
            end if;
            -- No longer far: undo this block, which gives the shared lock back, and count exactly below.
            raise exception using errcode = 'QA001';
          end if;
        exception when sqlstate 'QA001' then
          null;
        end;
      end if;
      perform pg_advisory_xact_lock(lock_key);
      select coalesce(sum(c.queued), 0) into counted from message_queue_counts c where c.account_sid = account;
      return counted < quota;
    end $$
  `.execute(db);
}
