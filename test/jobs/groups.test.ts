// PostgreSQL: the jobs of grouped kinds claimed together run their transactions as one (store/transaction-group.ts);
// a group that fails writes nothing, and its jobs run again alone.
import pino from 'pino';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Store, Tx } from '../../server/store/db.js';
import { enqueueJob, type Job } from '../../server/jobs/queue.js';
import { JobWorker, type JobContext } from '../../server/jobs/worker.js';
import { defineJob } from '../../server/jobs/job.js';
import { Savepoint } from '../../server/store/savepoint.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { waitUntil } from '../support/wait.js';

const logger = pino({ level: 'silent' });

type Payload = { n: number };
const GROUPED = defineJob<Payload>('test.grouped', { grouped: true });
const ALONE = defineJob<Payload>('test.alone');
const STEP_SAVEPOINT = new Savepoint('test_step');

/** Each run of a job: its number, its transaction's id, whether that transaction was a group's, and whether its
 * afterCommit hook ran. */
interface Run {
  n: number;
  txid: string;
  shared: boolean;
  committed: boolean;
}

describe.runIf(ENGINES.includes('postgres'))('groups of job transactions (postgres)', () => {
  const cleanups = useCleanups();

  /** A store with a table `done` (one row per job's write: a second write of one job fails its primary key). */
  async function setup() {
    const db = freshDatabase('postgres');
    cleanups.push(() => db.dispose());
    const store = await db.open();
    await sql`create table done (n integer primary key, txid text not null)`.execute(store.db);
    return store;
  }

  /** Enqueues jobs 1..count of `type` (all due now), before any worker runs: one claim takes them all. */
  async function enqueue(store: Store, count: number, type = GROUPED, from = 1) {
    await store.transaction(async (tx) => {
      for (let n = from; n < from + count; n++) await enqueueJob(tx, type, { n });
    });
  }

  function start(store: Store, run: (job: Job<Payload>, ctx: JobContext) => Promise<void>) {
    const worker = new JobWorker(store, [GROUPED.handle(run), ALONE.handle(run)], logger, { pollMs: 10 });
    worker.start();
    cleanups.push(() => worker.stop());
    return worker;
  }

  /** The job's write, in `tx`: its row in `done` (numbered `row`, its own number by default), and its run recorded. */
  async function write(tx: Tx, job: Job<Payload>, runs: Run[], row = job.payload.n) {
    const { rows } = await sql<{ txid: string }>`select txid_current()::text as txid`.execute(tx.db);
    const txid = rows[0].txid;
    const run = { n: job.payload.n, txid, shared: tx.shared === true, committed: false };
    runs.push(run);
    tx.afterCommit(() => (run.committed = true));
    await sql`insert into done (n, txid) values (${row}, ${txid})`.execute(tx.db);
  }

  /** The jobs' numbers of these runs, in order. */
  const numbers = (runs: Run[]) => runs.map((run) => run.n).sort((a, b) => a - b);
  const doneRows = (store: Store) =>
    sql<{ n: number; txid: string }>`select n, txid from done order by n`.execute(store.db).then((r) => r.rows);
  const jobsLeft = (store: Store) => store.db.selectFrom('jobs').select(['id', 'last_error']).execute();

  it('runs the grouped jobs of one claim in one transaction, and a job of another kind in its own', async () => {
    const store = await setup();
    await enqueue(store, 8);
    await enqueue(store, 1, ALONE, 9);
    const runs: Run[] = [];
    start(store, (job, ctx) => ctx.transaction(async (tx) => write(tx, job, runs).then(() => ctx.finishIn(tx))));

    await waitUntil(async () => (await doneRows(store)).length === 9);
    const rows = await doneRows(store);
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const grouped = rows.filter((row) => row.n <= 8);
    expect(new Set(grouped.map((row) => row.txid)).size).toBe(1);
    expect(rows[8].txid).not.toBe(grouped[0].txid);
    expect(numbers(runs.filter((run) => run.shared))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Each member's hook ran once the group committed.
    expect(numbers(runs.filter((run) => run.shared && run.committed))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await waitUntil(async () => (await jobsLeft(store)).length === 0);
  });

  it('writes nothing of a group one of whose statements PostgreSQL refused; every job then runs alone', async () => {
    const store = await setup();
    // Job 3 writes a row another job writes: a primary key violation, which aborts the group's transaction.
    await sql`insert into done (n, txid) values (103, 'before')`.execute(store.db);
    await enqueue(store, 6);
    const runs: Run[] = [];
    const worker = start(store, (job, ctx) =>
      ctx.transaction(async (tx) => {
        await write(tx, job, runs, job.payload.n === 3 ? 103 : job.payload.n);
        await ctx.finishIn(tx);
      }),
    );

    await waitUntil(async () => (await jobsLeft(store)).every((job) => job.last_error !== null));
    await waitUntil(async () => (await doneRows(store)).length === 6);
    // Before job 3's retry (its backoff is half a second at least).
    await worker.stop();
    const rows = await doneRows(store);
    // Each job but 3 written once, each in a transaction of its own (the group's writes were rolled back).
    expect(rows.map((row) => row.n)).toEqual([1, 2, 4, 5, 6, 103]);
    expect(new Set(rows.filter((row) => row.n < 100).map((row) => row.txid)).size).toBe(5);
    // Each first ran in the group, whose statements were all answered before job 3's insert failed.
    expect(numbers(runs.filter((run) => run.shared))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(numbers(runs.filter((run) => !run.shared))).toEqual([1, 2, 3, 4, 5, 6]);
    // No hook of the group's runs ran; each run alone that committed ran its own.
    expect(runs.filter((run) => run.shared && run.committed)).toEqual([]);
    expect(numbers(runs.filter((run) => run.committed))).toEqual([1, 2, 4, 5, 6]);
    // Job 3 failed alone, as it would have without the group: retried later, its one claim counted once.
    const left = await store.db.selectFrom('jobs').select(['attempts', 'last_error', 'payload']).execute();
    expect(left).toHaveLength(1);
    expect(JSON.parse(left[0].payload)).toEqual({ n: 3 });
    expect(left[0].attempts).toBe(1);
    expect(left[0].last_error).toMatch(/duplicate key/);
  });

  it('refuses a savepoint in a group (it would undo others’ statements); each job runs alone, with it', async () => {
    const store = await setup();
    await enqueue(store, 4);
    const runs: Run[] = [];
    start(store, (job, ctx) =>
      ctx.transaction(async (tx) => {
        await write(tx, job, runs);
        // Job 2's step throws under its savepoint: its own write stays, what the step wrote is undone.
        const failed = await STEP_SAVEPOINT.errorOf(tx, async (step) => {
          await sql`insert into done (n, txid) values (${job.payload.n + 100}, 'step')`.execute(step.db);
          if (job.payload.n === 2) throw new Error('the step refused');
        });
        expect(failed === undefined).toBe(job.payload.n !== 2);
        await ctx.finishIn(tx);
      }),
    );

    await waitUntil(async () => (await jobsLeft(store)).length === 0);
    const rows = await doneRows(store);
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3, 4, 101, 103, 104]);
    expect(runs.filter((run) => run.shared)).toHaveLength(4);
    expect(numbers(runs.filter((run) => !run.shared))).toEqual([1, 2, 3, 4]);
  });

  it('runs a grouped job in a transaction of its own when its claim holds no other grouped job', async () => {
    const store = await setup();
    await enqueue(store, 1);
    await enqueue(store, 2, ALONE, 2);
    const runs: Run[] = [];
    start(store, (job, ctx) => ctx.transaction(async (tx) => write(tx, job, runs).then(() => ctx.finishIn(tx))));
    await waitUntil(async () => (await jobsLeft(store)).length === 0);
    expect(runs.map((run) => run.shared)).toEqual([false, false, false]);
    expect(new Set((await doneRows(store)).map((row) => row.txid)).size).toBe(3);
  });

  it('runs a job tried before alone, and the others of its claim in their group', async () => {
    const store = await setup();
    await enqueue(store, 4);
    // Job 2 failed once before (its retry is due now): its claim is its second attempt.
    await sql`update jobs set attempts = 1 where payload = ${JSON.stringify({ n: 2 })}`.execute(store.db);
    const runs: Run[] = [];
    start(store, (job, ctx) => ctx.transaction(async (tx) => write(tx, job, runs).then(() => ctx.finishIn(tx))));
    await waitUntil(async () => (await jobsLeft(store)).length === 0);
    expect(numbers(runs.filter((run) => run.shared))).toEqual([1, 3, 4]);
    expect(numbers(runs.filter((run) => !run.shared))).toEqual([2]);
  });

  it('refuses a statement a job left behind once every job of its group is done (committing, then ended)', async () => {
    const store = await setup();
    await enqueue(store, 2);
    const runs: Run[] = [];
    let late: Promise<unknown> | undefined;
    let secondDone!: () => void;
    const second = new Promise<void>((resolve) => (secondDone = resolve));
    start(store, (job, ctx) =>
      ctx.transaction(async (tx) => {
        await write(tx, job, runs);
        await ctx.finishIn(tx);
        if (job.payload.n === 2) return secondDone();
        // Job 1 ends last, and leaves a statement behind: it comes while the group's commit is on its way.
        await second;
        await new Promise((resolve) => setTimeout(resolve, 50));
        setImmediate(() => {
          const insert = sql`insert into done (n, txid) values (99, 'late')`.execute(tx.db);
          late = insert.then(
            () => 'written',
            (err: Error) => err.message,
          );
        });
      }),
    );
    await waitUntil(async () => (await jobsLeft(store)).length === 0 && late !== undefined);
    expect(await late).toBe('a statement of a group of transactions that has ended');
    expect(numbers(runs.filter((run) => run.shared && run.committed))).toEqual([1, 2]);
    expect((await doneRows(store)).map((row) => row.n)).toEqual([1, 2]);
  });
});
