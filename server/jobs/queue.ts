// The durable job table: enqueue inside the caller's transaction, claim with a lease, finish or retry.
import type { EventEmitter } from 'node:events';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, Dialect, QueueSignal, Tx } from '../store/db.js';
import type { JobRow } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';
import type { JobType } from './job.js';
import { DEFAULT_MAX_CLAIMS, claimedTooOften, type Claim } from './claim-loop.js';
import { leaseNow, leaseUntil } from '../clock.js';

export interface Job<P = unknown> {
  id: number;
  kind: string;
  payload: P;
  attempts: number;
  maxAttempts: number;
  orderingKey: string | null;
  /** Claims without an outcome so far, this one included. */
  claims: number;
  /** This claim found the job claimed JOB_MAX_CLAIMS times already, and marked it dead instead: do not run it. */
  dead: boolean;
}

export interface EnqueueOptions {
  /** When to run it; now by default. */
  runAt?: Date;
  /** Jobs that share a key run one at a time, in the order they were enqueued. */
  orderingKey?: string;
  maxAttempts?: number;
}

const insertJob = prepared((db, row: Insertable<JobRow>) => db.insertInto('jobs').values(row), { deferred: true });
const deleteJob = prepared((db, id: number, workerId: string) =>
  db.deleteFrom('jobs').where('id', '=', id).where('locked_by', '=', workerId),
);
const updateHeldJob = prepared((db, id: number, workerId: string, change: Updateable<JobRow>) =>
  db.updateTable('jobs').set(change).where('id', '=', id).where('locked_by', '=', workerId),
);

// PostgreSQL: a held job's delete and update that check its lease themselves (job_held, 029: they raise when they
// changed no row), so that they go to the database with the transaction's commit instead of alone.
const deleteHeldAsserting = prepared(
  (db, id: number, workerId: string) =>
    db
      .with('done', (db) =>
        db.deleteFrom('jobs').where('id', '=', id).where('locked_by', '=', workerId).returning('id'),
      )
      .selectNoFrom(sql<number>`job_held((select count(*) from done), ${id})`.as('held')),
  { deferred: true },
);
const updateHeldAsserting = prepared(
  (db, id: number, workerId: string, change: Updateable<JobRow>) =>
    db
      .with('changed', (db) =>
        db.updateTable('jobs').set(change).where('id', '=', id).where('locked_by', '=', workerId).returning('id'),
      )
      .selectNoFrom(sql<number>`job_held((select count(*) from changed), ${id})`.as('held')),
  { deferred: true },
);

export async function enqueueJob<P>(
  tx: Tx,
  type: JobType<P>,
  payload: NoInfer<P>,
  options: EnqueueOptions = {},
): Promise<void> {
  const now = tx.clock.now();
  const row = jobRow(type, payload, options, now);
  await insertJob.run(tx.db, row);
  tx.afterCommit(() => jobCommitted(tx.signals, row, now));
}

/** The row `enqueueJob` inserts at `now` (ms): for a statement that inserts a job beside other writes of its own. */
export function jobRow<P>(type: JobType<P>, payload: NoInfer<P>, options: EnqueueOptions, now: number) {
  return {
    kind: type.kind,
    payload: JSON.stringify(payload),
    run_at: (options.runAt ?? new Date(now)).toISOString(),
    max_attempts: options.maxAttempts ?? 10,
    ordering_key: options.orderingKey ?? null,
    locked_by: null,
    locked_until: null,
    last_error: null,
    date_created: new Date(now).toISOString(),
  } satisfies Insertable<JobRow>;
}

/** Once a job's row is committed: wakes the store's claim loops when it is due at `now` (ms), before their poll. */
export function jobCommitted(signals: EventEmitter, row: Pick<JobRow, 'run_at'>, now: number): void {
  if (Date.parse(row.run_at) <= now) signals.emit('jobs' satisfies QueueSignal);
}

/**
 * Enqueues a job of `kind` unless one already exists (a recurring job that schedules itself, made once per database).
 * On PostgreSQL, instances starting at the same moment take turns on a lock of the kind held to the end of their
 * transactions, so the second sees the first's job instead of adding its own; SQLite has one writer at a time.
 */
export async function enqueueJobOnce<P>(
  tx: Tx,
  dialect: Dialect,
  type: JobType<P>,
  payload: NoInfer<P>,
  options: EnqueueOptions = {},
): Promise<void> {
  if (dialect === 'postgres')
    await sql`select pg_advisory_xact_lock(hashtext(${`jobs.once:${type.kind}`}))`.execute(tx.db);
  const existing = await tx.db.selectFrom('jobs').select('id').where('kind', '=', type.kind).executeTakeFirst();
  if (!existing) await enqueueJob(tx, type, payload, options);
}

/**
 * Claims up to `limit` jobs due at `now` (the clock's) for `workerId`, for `leaseMs` of real time. A job whose
 * lease ran out (its worker died) is due again; one that this claim finds claimed `maxClaims` times already without
 * an outcome (poison: its run kills the process) is marked dead instead, and returned with `dead` set. On
 * PostgreSQL, SKIP LOCKED lets several instances claim at once without ever taking the same job; SQLite has a single
 * writer, so the update is already exclusive.
 */
export async function claimJobs(db: Db, dialect: Dialect, claim: Claim): Promise<Job[]> {
  const { workerId, limit, leaseMs, now } = claim;
  const maxClaims = claim.maxClaims ?? DEFAULT_MAX_CLAIMS;
  const nowIso = new Date(now).toISOString();
  const lock = sql.raw(dialect === 'postgres' ? 'for update skip locked' : '');
  // The claim sets only columns no index holds (`dead` is in two): poison is rare, and marked apart below.
  const result = await sql<Selectable<JobRow>>`
    update jobs set locked_by = ${workerId}, locked_until = ${leaseUntil(leaseMs)}, attempts = attempts + 1,
      claims = claims + 1
    where id in (
      select j.id from jobs j
      where j.dead = 0 and j.run_at <= ${nowIso}
        and (j.locked_until is null or j.locked_until < ${leaseNow()})
        and (j.ordering_key is null or not exists (
          select 1 from jobs e where e.ordering_key = j.ordering_key and e.id < j.id and e.dead = 0))
      order by j.run_at, j.id
      limit ${limit}
      ${lock}
    )
    returning *`.execute(db);
  const poisoned = result.rows.filter((row) => Number(row.claims) > maxClaims).map((row) => Number(row.id));
  if (poisoned.length) await markJobsDead(db, poisoned, workerId, maxClaims);
  return result.rows
    .map((row) => {
      const dead = poisoned.includes(Number(row.id));
      return {
        id: Number(row.id),
        kind: row.kind,
        payload: JSON.parse(row.payload),
        attempts: Number(row.attempts) - (dead ? 1 : 0),
        maxAttempts: row.max_attempts,
        orderingKey: row.ordering_key,
        claims: Number(row.claims) - (dead ? 1 : 0),
        dead,
      };
    })
    .sort((a, b) => a.id - b.id);
}

/** Gives up jobs this worker just claimed one time too many, undoing that claim's counts. */
async function markJobsDead(db: Db, ids: number[], workerId: string, maxClaims: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({
      locked_by: null,
      locked_until: null,
      dead: 1,
      last_error: claimedTooOften(maxClaims),
      attempts: eb('attempts', '-', 1),
      claims: eb('claims', '-', 1),
    }))
    .where('id', 'in', ids)
    .where('locked_by', '=', workerId)
    .execute();
}

/** Removes a finished job; only the worker holding it can. Returns false when the lease was lost. */
export async function finishJob(db: Db | Tx['db'], job: Job, workerId: string): Promise<boolean> {
  return (await deleteJob.run(db, job.id, workerId)) === 1;
}

/**
 * `finishJob` inside the transaction of the job's effects. On PostgreSQL the lease is checked by the statement,
 * sent with the commit: a lost lease fails the commit (`job N lease lost`) rather than this call.
 */
export async function finishJobIn(tx: Tx, dialect: Dialect, job: Job, workerId: string): Promise<boolean> {
  if (dialect !== 'postgres') return finishJob(tx.db, job, workerId);
  await deleteHeldAsserting.run(tx.db, job.id, workerId);
  return true;
}

/** Extends the lease of a job this worker holds to `leaseMs` from now. False when the lease was lost. */
export async function holdJob(db: Db | Tx['db'], job: Job, workerId: string, leaseMs: number): Promise<boolean> {
  return (await updateHeldJob.run(db, job.id, workerId, { locked_until: leaseUntil(leaseMs) })) === 1;
}

/**
 * Keeps the job for its next step, inside the transaction of the job's step: a new payload and run time (and kind,
 * when given), a fresh attempt count. False when the lease was lost; on PostgreSQL, as `finishJobIn` does.
 */
export async function continueJobIn(
  tx: Tx,
  dialect: Dialect,
  job: Job,
  workerId: string,
  payload: unknown,
  runAt: Date,
  kind?: string,
): Promise<boolean> {
  const change = continued(payload, runAt, kind);
  if (dialect !== 'postgres') return (await updateHeldJob.run(tx.db, job.id, workerId, change)) === 1;
  await updateHeldAsserting.run(tx.db, job.id, workerId, change);
  return true;
}

function continued(payload: unknown, runAt: Date, kind?: string): Updateable<JobRow> {
  return {
    kind,
    payload: JSON.stringify(payload),
    run_at: runAt.toISOString(),
    attempts: 0,
    claims: 0,
    locked_by: null,
    locked_until: null,
    last_error: null,
  };
}

/** Schedules another attempt at `runAt`, or marks the job dead once it has used every attempt. */
export async function retryJob(db: Db, job: Job, workerId: string, error: string, runAt: Date): Promise<void> {
  const dead = job.attempts >= job.maxAttempts;
  await updateHeldJob.run(db, job.id, workerId, {
    run_at: runAt.toISOString(),
    locked_by: null,
    locked_until: null,
    last_error: error.slice(0, 2000),
    dead: dead ? 1 : 0,
    claims: 0,
  });
}

/**
 * Gives back every job `workerId` holds (a stopping instance's, whose runs did not end in time): due again at once for
 * any instance, and that claim not counted towards JOB_MAX_CLAIMS (the instance stopped, its run did not kill it).
 * Returns how many.
 */
export async function releaseJobs(db: Db, workerId: string): Promise<number> {
  const result = await db
    .updateTable('jobs')
    // Given back unfinished, the run counts neither as a claim nor as an attempt.
    .set((eb) => ({
      locked_by: null,
      locked_until: null,
      claims: eb('claims', '-', 1),
      attempts: eb('attempts', '-', 1),
    }))
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many jobs are dead, by kind (read through the partial index of dead jobs). */
export async function deadJobsByKind(db: Db): Promise<{ kind: string; count: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['kind', eb.fn.countAll<number | string>().as('count')])
    .where('dead', '=', 1)
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, count: Number(row.count) }));
}
