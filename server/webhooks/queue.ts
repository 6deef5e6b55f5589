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
  db.updateTable('webhook_events').set(change).where('id', '=', id).where('locked_by', '=', workerId),
);

/** Records an event inside the caller's transaction, due at once (from its creation) and held by no one. */
export async function recordEvent(
  tx: Tx,
  event: Omit<WebhookEventRow, 'run_at' | 'locked_by' | 'locked_until' | 'claims'>,
): Promise<void> {
  await insertEvent.run(tx.db, { ...event, run_at: event.date_created, locked_by: null, locked_until: null });
  tx.afterCommit(() => tx.signals.emit('webhooks' satisfies QueueSignal));
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
  const result = await sql<Omit<ClaimedEvent, 'dead'> & { seq: number | string }>`
    update webhook_events set locked_by = ${workerId}, locked_until = ${leaseUntil(leaseMs)}, claims = claims + 1
    where id in (
      select w.id from webhook_events w
      where w.status = 'pending' and w.run_at <= ${nowIso}
        and (w.locked_until is null or w.locked_until < ${leaseNow()})
        and not exists (
          select 1 from webhook_events e
          where e.status = 'pending' and e.resource_sid = w.resource_sid and e.${seq} < w.${seq})
      order by w.run_at, w.${seq}
      limit ${limit}
      ${lock}
    )
    returning id, account_sid, type, url, payload, attempts, on_response, claims, ${seq} as seq`.execute(db);
  const poisoned = result.rows.filter((row) => Number(row.claims) > maxClaims).map((row) => row.id);
  if (poisoned.length) await markEventsDead(db, poisoned, workerId, nowIso);
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

/** Gives up events this worker just claimed one time too many, undoing that claim's count. */
async function markEventsDead(db: Db, ids: string[], workerId: string, now: string): Promise<void> {
  await db
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
    .execute();
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
export async function releaseEvent(db: Tx['db'], id: string, workerId: string, outcome: Outcome): Promise<boolean> {
  return (await releaseHeld.run(db, id, workerId, released(outcome))) === 1;
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

const releaseAndRecord = prepared(
  (db, id: string, workerId: string, change: Updateable<WebhookEventRow>, attempt: Omit<WebhookAttemptRow, 'id'>) =>
    db
      .with('released', (q) =>
        q
          .updateTable('webhook_events')
          .set(change)
          .where('id', '=', id)
          .where('locked_by', '=', workerId)
          .returning('id'),
      )
      .insertInto('webhook_attempts')
      .columns(['event_id', 'attempt', 'date_attempted', 'duration_ms', 'response_status', 'error', 'response_excerpt'])
      .expression((eb) =>
        eb
          .selectFrom('released')
          .select([
            'released.id',
            sql<number>`cast(${attempt.attempt} as integer)`.as('attempt'),
            sql<string>`cast(${attempt.date_attempted} as text)`.as('date_attempted'),
            sql<number>`cast(${attempt.duration_ms} as integer)`.as('duration_ms'),
            sql<number>`cast(${attempt.response_status} as integer)`.as('response_status'),
            sql<string>`cast(${attempt.error} as text)`.as('error'),
            sql<string>`cast(${attempt.response_excerpt} as text)`.as('response_excerpt'),
          ]),
      ),
);

/**
 * PostgreSQL: releaseEvent and recordAttempt in one statement, which commits on its own: one round trip instead of a
 * transaction's four. False when the lease was lost (nothing is written then).
 */
export async function releaseRecordingAttempt(
  db: Db,
  id: string,
  workerId: string,
  outcome: Outcome,
  attempt: Omit<WebhookAttemptRow, 'id'>,
): Promise<boolean> {
  return (await releaseAndRecord.run(db, id, workerId, released(outcome), attempt)) === 1;
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
export async function retryGivenUpEvent(tx: Tx, accountSid: string, id: string, now: string): Promise<boolean> {
  const result = await tx.db
    .updateTable('webhook_events')
    .set({ status: 'pending', run_at: now, locked_by: null, locked_until: null, claims: 0, date_updated: now })
    .where('id', '=', id)
    .where('account_sid', '=', accountSid)
    .where('status', 'in', ['failed', 'dead'])
    .executeTakeFirst();
  const retried = Number(result.numUpdatedRows) === 1;
  if (retried) tx.afterCommit(() => tx.signals.emit('webhooks' satisfies QueueSignal));
  return retried;
}
