// The webhook events as a durable queue of their own: recorded in the transaction of the change they report,
// claimed under a lease once due (and only the oldest pending event of a resource, so each resource's events go
// out in order), and released with the outcome of the attempt.
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db, Dialect, QueueSignal, Tx } from '../store/db.js';
import type { WebhookAttemptRow, WebhookEventRow } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';
import { leaseNow, leaseUntil } from '../clock.js';
import { DEFAULT_MAX_CLAIMS, type Claim } from '../jobs/claim-loop.js';

export type ClaimedEvent = Pick<
  WebhookEventRow,
  'id' | 'account_sid' | 'type' | 'url' | 'payload' | 'attempts' | 'on_response'
> & {
  /** Claims without an outcome so far, this one included. */
  claims: number;
  /** This claim found the event claimed JOB_MAX_CLAIMS times already, and marked it dead instead: do not send it. */
  dead: boolean;
};

const insertEvent = prepared((db, row: Insertable<WebhookEventRow>) => db.insertInto('webhook_events').values(row));
const insertAttempt = prepared((db, row: Omit<WebhookAttemptRow, 'id'>) =>
  db.insertInto('webhook_attempts').values(row),
);
const releaseHeld = prepared((db, id: string, workerId: string, change: Updateable<WebhookEventRow>) =>
  db
    .updateTable('webhook_events')
    .set(change)
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .returning('resource_sid'),
);

// PostgreSQL: the event waits (out of the claims' index, see 028) while its resource has a pending event. Only the
// oldest pending one can leave `pending` (the others wait behind it), so that one alone is locked `for share` to the
// end of the transaction: an attempt ending on it at this moment (whose next statement makes the oldest pending event
// due) runs after this commit, or this insert after it. Locking every pending event of the resource, in no order,
// deadlocked against such a release, which holds the first and then updates the next.
const insertWaitingEvent = prepared(
  (db, row: Insertable<WebhookEventRow>) =>
    db.insertInto('webhook_events').values({
      ...row,
      waiting: sql<number>`case when exists (select 1 from webhook_events e
      where e.resource_sid = ${row.resource_sid} and e.status = 'pending' order by e.seq limit 1 for share)
      then 1 else 0 end`,
    } as Insertable<WebhookEventRow>),
  { deferred: true },
);

/** Records an event inside the caller's transaction, due at once (from its creation) and held by no one. */
export async function recordEvent(
  tx: Tx,
  dialect: Dialect,
  event: Omit<WebhookEventRow, 'run_at' | 'locked_by' | 'locked_until' | 'claims'>,
): Promise<void> {
  const row = { ...event, run_at: event.date_created, locked_by: null, locked_until: null };
  await (dialect === 'postgres' ? insertWaitingEvent : insertEvent).run(tx.db, row);
  tx.afterCommit(() => tx.signals.emit('webhooks' satisfies QueueSignal));
}

/**
 * PostgreSQL: makes the oldest pending event of each of these resources due (not waiting), after events of theirs
 * left `pending`; a statement of its own, so that it sees the events inserted while it waited for their rows (028).
 */
async function dueNextOf(db: Db | Tx['db'], dialect: Dialect, resources: string[]): Promise<void> {
  if (dialect !== 'postgres' || !resources.length) return;
  await sql`
    update webhook_events set waiting = 0
    where waiting = 1 and id in (
      select distinct on (e.resource_sid) e.id from webhook_events e
      where e.resource_sid in (${sql.join(resources)}) and e.status = 'pending'
      order by e.resource_sid, e.seq)`.execute(db);
}

/**
 * Claims up to `limit` events due at `now` (the clock's) for `workerId`, for `leaseMs` of real time; an event whose
 * lease ran out (its instance died mid-attempt) is due again, and one that this claim finds claimed `maxClaims` times
 * already without an ended attempt is marked `dead` instead (returned with `dead` set). An event waits while an
 * earlier event of its resource is pending, so a retried event holds back the later ones. On PostgreSQL, SKIP LOCKED
 * lets several instances claim at once without taking the same event; SQLite has a single writer. The order key is
 * the insertion order (see 008).
 */
export async function claimEvents(
  db: Db,
  dialect: Dialect,
  { workerId, limit, leaseMs, now, maxClaims = DEFAULT_MAX_CLAIMS }: Claim,
): Promise<ClaimedEvent[]> {
  const nowIso = new Date(now).toISOString();
  const seq = sql.raw(dialect === 'postgres' ? 'seq' : 'rowid');
  const lock = sql.raw(dialect === 'postgres' ? 'for update skip locked' : '');
  // `status = 'pending'` is written out (not a parameter) so that the planners use the partial indexes. The claim
  // sets only columns no index holds (`status` is in three): poison is rare, and marked apart below.
  // PostgreSQL: events waiting behind another of their resource are not in the claim's index (028), and not read.
  const due = sql.raw(dialect === 'postgres' ? 'and w.waiting = 0' : '');
  const result = await sql<Omit<ClaimedEvent, 'dead'> & { seq: number | string }>`
    update webhook_events set locked_by = ${workerId}, locked_until = ${leaseUntil(leaseMs)}, claims = claims + 1
    where id in (
      select w.id from webhook_events w
      where w.status = 'pending' ${due} and w.run_at <= ${nowIso}
        and (w.locked_until is null or w.locked_until < ${leaseNow()})
        and not exists (
          select 1 from webhook_events e
          where e.status = 'pending' and e.resource_sid = w.resource_sid and e.${seq} < w.${seq})
      order by w.run_at, w.${seq}
      limit ${limit}
      ${lock}
    )
    returning id, account_sid, type, url, payload, attempts, on_response, claims, ${seq} as seq`.execute(db);
  if (!result.rows.length && dialect === 'postgres') await repairWaiting(db);
  const poisoned = result.rows.filter((row) => Number(row.claims) > maxClaims).map((row) => row.id);
  if (poisoned.length) await markEventsDead(db, dialect, poisoned, workerId, nowIso);
  return result.rows
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map(({ id, account_sid, type, url, payload, attempts, on_response, claims }) => {
      const dead = poisoned.includes(id);
      return {
        id,
        account_sid,
        type,
        url,
        payload,
        attempts: Number(attempts),
        on_response,
        claims: Number(claims) - (dead ? 1 : 0),
        dead,
      };
    });
}

const lastRepairs = new WeakMap<Db, number>();
const REPAIR_EVERY_MS = 10_000;

/**
 * PostgreSQL: makes due every waiting event with no pending event before it in its resource, the one a release should
 * have made due: left waiting when its predecessor left `pending` in a transaction that failed after (a deadlock
 * broken, a connection lost) or through an instance of a build before 028. Run when a claim found nothing due, at
 * most every 10 s an instance; it reads the pending events only (their partial index), few when nothing is due.
 */
async function repairWaiting(db: Db): Promise<void> {
  const now = performance.now();
  if (now - (lastRepairs.get(db) ?? -Infinity) < REPAIR_EVERY_MS) return;
  lastRepairs.set(db, now);
  await sql`
    update webhook_events w set waiting = 0
    where w.status = 'pending' and w.waiting = 1 and not exists (
      select 1 from webhook_events e where e.status = 'pending' and e.resource_sid = w.resource_sid and e.seq < w.seq)
  `.execute(db);
}

/** Gives up events this worker just claimed one time too many, undoing that claim's count; on PostgreSQL in one
 * transaction with making the next event of their resources due, so that no crash between the two leaves it waiting. */
async function markEventsDead(db: Db, dialect: Dialect, ids: string[], workerId: string, now: string) {
  if (dialect === 'postgres') {
    await db.transaction().execute((trx) => markDead(trx, dialect, ids, workerId, now));
  } else await markDead(db, dialect, ids, workerId, now);
}

async function markDead(db: Db | Tx['db'], dialect: Dialect, ids: string[], workerId: string, now: string) {
  const dead = await db
    .updateTable('webhook_events')
    .set((eb) => ({
      locked_by: null,
      locked_until: null,
      status: 'dead',
      date_updated: now,
      claims: eb('claims', '-', 1),
    }))
    .where('id', 'in', ids)
    .where('locked_by', '=', workerId)
    .returning('resource_sid')
    .execute();
  await dueNextOf(db, dialect, [...new Set(dead.map((row) => row.resource_sid))]);
}

export interface Outcome {
  attempts: number;
  status: WebhookEventRow['status'];
  /** When the next attempt is due (a pending event's), or now. */
  runAt: string;
  now: string;
}

/** An event's row once an attempt ended: its outcome, no lease, no claims counted since. */
function released(outcome: Outcome): Updateable<WebhookEventRow> {
  return {
    attempts: outcome.attempts,
    status: outcome.status,
    run_at: outcome.runAt,
    locked_by: null,
    locked_until: null,
    claims: 0,
    date_updated: outcome.now,
  };
}

/** Ends `workerId`'s lease with the outcome of an attempt; false when the lease was lost (another instance holds
 * it). */
export async function releaseEvent(
  db: Tx['db'],
  dialect: Dialect,
  id: string,
  workerId: string,
  outcome: Outcome,
): Promise<boolean> {
  const row = await releaseHeld.first(db, id, workerId, released(outcome));
  if (!row) return false;
  if (outcome.status !== 'pending') await dueNextOf(db, dialect, [row.resource_sid]);
  return true;
}

/**
 * Gives back every pending event `workerId` holds (a stopping instance's, whose attempts did not end in time): due
 * again at once for any instance, that claim not counted towards JOB_MAX_CLAIMS. Returns how many.
 */
export async function releaseEvents(db: Db, workerId: string): Promise<number> {
  const result = await db
    .updateTable('webhook_events')
    .set((eb) => ({ locked_by: null, locked_until: null, claims: eb('claims', '-', 1) }))
    .where(sql<boolean>`status = 'pending'`)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** An attempt that ended: its event's release with the outcome, and its record. */
export interface EndedAttempt {
  id: string;
  workerId: string;
  outcome: Outcome;
  attempt: Omit<WebhookAttemptRow, 'id'>;
}

/**
 * PostgreSQL: releaseEvent and recordAttempt of several attempts in one call of 028's function, which commits on its
 * own: one round trip for them all instead of a transaction's five each. Each attempt is its outcome's (its number
 * and time). Answers the ids of the events released; one whose lease was lost is not among them, and nothing of it
 * is written.
 */
export async function releaseRecordingAttempts(db: Db, ended: EndedAttempt[]): Promise<Set<string>> {
  const batch = ended.map(({ id, workerId, outcome, attempt }) => ({
    id,
    worker: workerId,
    attempt: outcome.attempts,
    status: outcome.status,
    runAt: outcome.runAt,
    now: outcome.now,
    duration: attempt.duration_ms,
    answer: attempt.response_status,
    error: attempt.error,
    excerpt: attempt.response_excerpt,
  }));
  const { rows } = await sql<{ id: string }>`
    select webhook_events_release_all(${JSON.stringify(batch)}::jsonb) as id`.execute(db);
  return new Set(rows.map((row) => row.id));
}

/** Records one delivery attempt of an event, in the transaction that releases it. */
export async function recordAttempt(db: Tx['db'], attempt: Omit<WebhookAttemptRow, 'id'>): Promise<void> {
  await insertAttempt.run(db, attempt);
}

const endedBelow = (db: Db | Tx['db'], below: string) =>
  db.selectFrom('webhook_events').select('id').where('id', '<', below).where('status', '<>', 'pending');

/** The id of the `n`th ended (delivered or given up) event with an id below `below`: where a chunk of them ends. */
export async function endedEventAt(db: Db, below: string, n: number): Promise<string | undefined> {
  return (
    await endedBelow(db, below)
      .orderBy('id')
      .limit(1)
      .offset(n - 1)
      .executeTakeFirst()
  )?.id;
}

/** Deletes the ended events below `below` (and up to `upTo`, when given) with their attempts; returns how many went. */
export async function deleteEndedEvents(db: Tx['db'], below: string, upTo: string | undefined): Promise<bigint> {
  const ended = upTo ? endedBelow(db, below).where('id', '<=', upTo) : endedBelow(db, below);
  await db.deleteFrom('webhook_attempts').where('event_id', 'in', ended).execute();
  return (await db.deleteFrom('webhook_events').where('id', 'in', ended).executeTakeFirst()).numDeletedRows;
}

/** How many webhook events are dead (claimed too often, see claimEvents), by type. */
export async function deadEventsByType(db: Db): Promise<{ type: string; count: number }[]> {
  // `status = 'dead'` written out, as the partial index of dead events is declared.
  const rows = await db
    .selectFrom('webhook_events')
    .select((eb) => ['type', eb.fn.countAll<number | string>().as('count')])
    .where(sql<boolean>`status = 'dead'`)
    .groupBy('type')
    .execute();
  return rows.map((row) => ({ type: row.type, count: Number(row.count) }));
}

/** Events shown for one record, at most (a record has a handful: one per status change). */
const EVENTS_PER_RECORD = 200;

export type DeliveryEvent = Pick<
  WebhookEventRow,
  'id' | 'resource_sid' | 'type' | 'url' | 'status' | 'attempts' | 'date_created' | 'date_updated'
> & { attempt_log: Omit<WebhookAttemptRow, 'id' | 'event_id'>[] };

/** The webhook events of these resources of one account, oldest first, each with every attempt made. */
export async function eventsOfResources(db: Db, accountSid: string, resourceSids: string[]): Promise<DeliveryEvent[]> {
  if (resourceSids.length === 0) return [];
  const events = await db
    .selectFrom('webhook_events')
    .select(['id', 'resource_sid', 'type', 'url', 'status', 'attempts', 'date_created', 'date_updated'])
    .where('resource_sid', 'in', resourceSids)
    .where('account_sid', '=', accountSid)
    .orderBy('date_created')
    .orderBy('id')
    .limit(EVENTS_PER_RECORD)
    .execute();
  if (events.length === 0) return [];
  const attempts = await db
    .selectFrom('webhook_attempts')
    .select(['event_id', 'attempt', 'date_attempted', 'duration_ms', 'response_status', 'error', 'response_excerpt'])
    .where(
      'event_id',
      'in',
      events.map((e) => e.id),
    )
    .orderBy('event_id')
    .orderBy('attempt')
    .execute();
  const byEvent = new Map<string, DeliveryEvent['attempt_log']>(events.map((e) => [e.id, []]));
  for (const { event_id, ...attempt } of attempts) byEvent.get(event_id)?.push(attempt);
  return events.map((event) => ({ ...event, attempt_log: byEvent.get(event.id) ?? [] }));
}

/**
 * Makes a given-up event (failed, or dead) of the account due again at `now`: one more attempt, recorded like the
 * others (an event given up after its last attempt is given up again if that one fails too). False when the
 * account has no such event, or it is not given up.
 */
export async function retryGivenUpEvent(
  tx: Tx,
  dialect: Dialect,
  accountSid: string,
  id: string,
  now: string,
): Promise<boolean> {
  const retried = await tx.db
    .updateTable('webhook_events')
    .set({ status: 'pending', run_at: now, locked_by: null, locked_until: null, claims: 0, date_updated: now })
    .where('id', '=', id)
    .where('account_sid', '=', accountSid)
    .where('status', 'in', ['failed', 'dead'])
    .returning('resource_sid')
    .executeTakeFirst();
  if (!retried) return false;
  // PostgreSQL: pending again, it goes back to its place among its resource's pending events (028): only the oldest
  // of them is due, the others wait (one being attempted now ends its attempt first).
  if (dialect === 'postgres')
    await sql`
      update webhook_events w set waiting = case when w.id = (select e.id from webhook_events e
        where e.resource_sid = w.resource_sid and e.status = 'pending' order by e.seq limit 1) then 0 else 1 end
      where w.resource_sid = ${retried.resource_sid} and w.status = 'pending'`.execute(tx.db);
  tx.afterCommit(() => tx.signals.emit('webhooks' satisfies QueueSignal));
  return true;
}
