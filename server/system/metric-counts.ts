// The aggregate reads behind the database gauges of /metrics (see metrics.ts), one query each, run at scrape time.
// They read across the areas' tables, so they live beside the metrics rather than in each area's store. Each one is
// answered from an index (migrations 008, 010, 019, 021), except the live jobs, which are read whole: the jobs table
// holds only work not done yet, and an index of it by kind would cost every job an entry to write and delete.
import { sql } from 'kysely';
import type { Db } from '../store/db.js';
import type { MessageRow } from '../store/schema.js';

/** Rows of `group by` counts; PostgreSQL answers counts as strings (bigint). */
type Counted<K extends string> = Record<K, string> & { count: number | string };

// Every direction a message can have, so that the counts below miss none.
const MESSAGE_DIRECTIONS = Object.keys({
  'outbound-api': true,
  'outbound-reply': true,
  inbound: true,
} satisfies Record<MessageRow['direction'], true>) as MessageRow['direction'][];

/** Messages by status and direction (the pairs with none left out). One walk of the status index (021), grouped by
 * its leading column with a sum per direction, rather than grouped by both columns, which sorts every row. */
export async function messagesByStatus(db: Db): Promise<Counted<'status' | 'direction'>[]> {
  const rows = await db
    .selectFrom('messages')
    .select((eb) => [
      'status',
      ...MESSAGE_DIRECTIONS.map((direction) =>
        eb.fn.sum<number | string>(eb.case().when('direction', '=', direction).then(1).else(0).end()).as(direction),
      ),
    ])
    .groupBy('status')
    .execute();
  return rows.flatMap((row) =>
    MESSAGE_DIRECTIONS.map((direction) => ({ status: row.status, direction, count: row[direction] })).filter(
      ({ count }) => Number(count) > 0,
    ),
  );
}

export async function callsByStatus(db: Db): Promise<Counted<'status'>[]> {
  return db
    .selectFrom('calls')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('count')])
    .groupBy('status')
    .execute();
}

export async function verificationsByStatus(db: Db): Promise<Counted<'status'>[]> {
  return db
    .selectFrom('verifications')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('count')])
    .groupBy('status')
    .execute();
}

export interface LiveJobs {
  kind: string;
  /** Jobs not dead: waiting for their time, due, or running. */
  queued: number;
  /** Of those, the ones whose time has come (running ones included). */
  due: number;
  /** The run_at of the earliest due job, or null when none is due. */
  oldestDue: string | null;
}

/** Live jobs by kind at `now` (ISO). */
export async function liveJobsByKind(db: Db, now: string): Promise<LiveJobs[]> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      'kind',
      eb.fn.countAll<number | string>().as('queued'),
      eb.fn.sum<number | string>(eb.case().when('run_at', '<=', now).then(1).else(0).end()).as('due'),
      eb.fn.min('run_at').as('earliest'),
    ])
    // Written out, as the claim index's predicate is (migration 023): a bound 0 may be planned without it.
    .where('dead', '=', sql.lit(0))
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({
    kind: row.kind,
    queued: Number(row.queued),
    due: Number(row.due),
    // The earliest live job is due when any is: then it is the earliest due one.
    oldestDue: row.earliest !== null && row.earliest <= now ? row.earliest : null,
  }));
}

/** Webhook events waiting for an attempt (or in one), and the run_at of the earliest, from the index of due events. */
export async function pendingEvents(db: Db): Promise<{ count: number; earliest: string | null }> {
  // `status = 'pending'` written out, as the partial index is declared (see claimEvents).
  const row = await db
    .selectFrom('webhook_events')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('run_at').as('earliest')])
    .where(sql<boolean>`status = 'pending'`)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), earliest: row.earliest };
}

/** Webhook events given up after their last attempt failed, by type. */
export async function failedEventsByType(db: Db): Promise<Counted<'type'>[]> {
  return db
    .selectFrom('webhook_events')
    .select((eb) => ['type', eb.fn.countAll<number | string>().as('count')])
    .where(sql<boolean>`status = 'failed'`)
    .groupBy('type')
    .execute();
}
