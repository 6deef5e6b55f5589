// PostgreSQL: round trips and reads the message pipeline no longer makes (see docs/performance.md, "The pipeline on
// PostgreSQL, second pass"). SQLite has one writer and no round trips: unchanged.
//
// 1. A sender's send slot taken in one round trip instead of three (the row made if need be, read under `for update`,
//    moved on). The arithmetic is the sandbox's of before: the slot is the later of now and the row's next free
//    moment, none when that is after `not_after`, and the next free moment moves one interval on (ms truncated, as
//    JavaScript's Date does). Times are ISO strings (toISOString's), compared in the C collation.
// 2. Only the oldest pending event of a resource is in the webhook claims' index: the others are `waiting`, so a
//    claim neither walks nor probes the events queued behind another (1,650 of them per claim under the bench's
//    backlog). An event is inserted waiting when its resource has a pending event (locked `for share`, so that an
//    attempt ending at that moment waits for the insert's commit), and the oldest pending event of its resource
//    stops waiting when an event leaves `pending` (webhook_event_release, or the statements of queue.ts), in a
//    statement of its own so it sees the inserts committed meanwhile. The claim keeps its check for an earlier pending
//    event, which waiting only spares it from making for most events.
// 3. The webhook attempts that ended in one turn of the server's event loop released and recorded in one call and one
//    commit (webhook_events_release_all), instead of a statement and a commit each.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create function carrier_send_slot_take(sender text, now_at text, not_after text, interval_ms double precision)
    returns text language plpgsql volatile set search_path from current as $$
    declare
      slot text;
    begin
      insert into carrier_send_slots (from_number, next_at) values (sender, '') on conflict (from_number) do nothing;
      select greatest(s.next_at collate "C", now_at) into slot
      from carrier_send_slots s where s.from_number = sender for update;
      if slot > not_after collate "C" then
        return null;
      end if;
      update carrier_send_slots
      set next_at = to_char((slot::timestamptz + interval_ms * interval '1 millisecond') at time zone 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      where from_number = sender;
      return slot;
    end $$
  `.execute(db);

  await sql`alter table webhook_events add column waiting smallint not null default 0`.execute(db);
  await sql`
    update webhook_events w set waiting = 1
    where w.status = 'pending'
      and exists (select 1 from webhook_events e where e.status = 'pending' and e.resource_sid = w.resource_sid
        and e.seq < w.seq)`.execute(db);
  await sql`
    create index webhook_events_claim on webhook_events (run_at, seq) where status = 'pending' and waiting = 0
  `.execute(db);
  await db.schema.dropIndex('webhook_events_due').execute();
  // An attempt's end: the event released with its outcome and the attempt recorded (the data-modifying WITH of
  // before), then, once the event left pending, the oldest pending event of its resource due.
  await sql`
    create function webhook_event_release(event_id text, worker text, attempt integer, new_status text,
      new_run_at text, now_at text, duration integer, answer integer, failure text, answer_excerpt text)
    returns boolean language plpgsql volatile set search_path from current as $$
    declare
      resource text;
    begin
      update webhook_events set attempts = attempt, status = new_status, run_at = new_run_at, locked_by = null,
        locked_until = null, claims = 0, date_updated = now_at
      where id = event_id and locked_by = worker
      returning resource_sid into resource;
      if not found then
        return false;
      end if;
      insert into webhook_attempts (event_id, attempt, date_attempted, duration_ms, response_status, error,
        response_excerpt)
      values (event_id, attempt, now_at, duration, answer, failure, answer_excerpt);
      if new_status <> 'pending' then
        update webhook_events set waiting = 0
        where waiting = 1 and id = (select e.id from webhook_events e
          where e.resource_sid = resource and e.status = 'pending' order by e.seq limit 1);
      end if;
      return true;
    end $$
  `.execute(db);
  // The attempts that ended in one turn of the server's event loop, in one statement and one commit (a JSON array of
  // webhook_event_release's arguments by name): the ids of the events released.
  await sql`
    create function webhook_events_release_all(batch jsonb) returns setof text
    language plpgsql volatile set search_path from current as $$
    declare
      item jsonb;
    begin
      for item in select value from jsonb_array_elements(batch) loop
        if webhook_event_release(item->>'id', item->>'worker', (item->>'attempt')::integer, item->>'status',
          item->>'runAt', item->>'now', (item->>'duration')::integer, (item->>'answer')::integer, item->>'error',
          item->>'excerpt') then
          return next item->>'id';
        end if;
      end loop;
    end $$
  `.execute(db);
}
