import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Store } from '../server/store/db.js';
import { claimJobs, enqueueJob, enqueueJobOnce, type Job } from '../server/jobs/queue.js';
import { JobWorker, RetryLater, type JobContext } from '../server/jobs/worker.js';
import { defineJob, type JobHandling, type JobType } from '../server/jobs/job.js';
import { ENGINES } from './support/server.js';
import { freshDatabase } from './support/database.js';
import { useCleanups } from './support/cleanups.js';
import { waitUntil } from './support/wait.js';
import { TestClock } from './support/clock.js';

const logger = pino({ level: 'silent' });
const HOUR = 3_600_000;

// These tests are of the queue's mechanics, not of payload types: their jobs take any payload.

type AnyPayload = any;
const kind = (name: string): JobType<AnyPayload> => defineJob<AnyPayload>(name);
/** Handlers by kind, as the worker takes them. */
const handlers = (byKind: Record<string, (job: Job<AnyPayload>, ctx: JobContext) => Promise<void>>): JobHandling[] =>
  Object.entries(byKind).map(([name, handler]) => kind(name).handle(handler));

describe.each(ENGINES)('durable jobs (%s)', (engine) => {
  const cleanups = useCleanups();

  async function setup() {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    return db;
  }

  function worker(store: Store, byKind: Parameters<typeof handlers>[0], options: { leaseMs?: number } = {}) {
    const w = new JobWorker(store, handlers(byKind), logger, { pollMs: 10, ...options });
    w.start();
    cleanups.push(() => w.stop());
    return w;
  }

  it('runs a job enqueued before a restart after the restart', async () => {
    const db = await setup();
    const first = await db.open();
    await first.transaction((tx) => enqueueJob(tx, kind('greet'), { name: 'before restart' }));
    await first.close();

    const second = await db.open();
    const seen: string[] = [];
    worker(second, { greet: async (job) => void seen.push(job.payload.name) });
    await waitUntil(async () => seen.length === 1);
    expect(seen).toEqual(['before restart']);
    expect(await second.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  });

  it('runs other jobs while one takes its time, and waits for it when stopped', async () => {
    const db = await setup();
    const store = await db.open();
    let release!: () => void;
    const slowGate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const w = new JobWorker(
      store,
      handlers({
        slow: async () => {
          await slowGate;
          ran.push('slow');
        },
        fast: async (job) => void ran.push(job.payload.n),
      }),
      logger,
      { pollMs: 10, batchSize: 2 },
    );
    w.start();
    await store.transaction((tx) => enqueueJob(tx, kind('slow'), {}));
    await waitUntil(
      async () => (await store.db.selectFrom('jobs').select('locked_by').executeTakeFirst())?.locked_by === w.workerId,
    );
    await store.transaction(async (tx) => {
      for (let n = 0; n < 10; n++) await enqueueJob(tx, kind('fast'), { n: String(n) });
    });
    await waitUntil(async () => ran.length === 10);
    expect(ran).not.toContain('slow');
    const stopped = w.stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).not.toContain('slow');
    release();
    await stopped;
    expect(ran).toContain('slow');
    expect(await store.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  });

  it('runs at most maxRunning jobs at once (JOB_CONCURRENCY), the rest as places free up', async () => {
    const db = await setup();
    const store = await db.open();
    await store.transaction(async (tx) => {
      for (let n = 0; n < 10; n++) await enqueueJob(tx, kind('held'), {});
    });
    const gates: (() => void)[] = [];
    let running = 0;
    let most = 0;
    let done = 0;
    const w = new JobWorker(
      store,
      handlers({
        held: async () => {
          most = Math.max(most, ++running);
          await new Promise<void>((resolve) => gates.push(resolve));
          running--;
          done++;
        },
      }),
      logger,
      { pollMs: 10, batchSize: 2, maxRunning: 4 },
    );
    w.start();
    cleanups.push(() => w.stop());
    await waitUntil(async () => gates.length === 4);
    await new Promise((r) => setTimeout(r, 100));
    expect(gates.length).toBe(4);
    while (done < 10) {
      gates.splice(0).forEach((open) => open());
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(most).toBe(4);
  });

  /** Enqueues `count` jobs whose handler notes when each ran. */
  const enqueueTicks = (store: Store, count: number) =>
    store.transaction(async (tx) => {
      for (let n = 0; n < count; n++) await enqueueJob(tx, kind('tick'), {});
    });

  /** A worker running one `tick` job per claim, told whether the API is busy; returns when each job ran. */
  function tickWorker(store: Store, busy: () => boolean, yields: { yieldMs: number; maxYieldMs?: number }): number[] {
    const ranAt: number[] = [];
    const w = new JobWorker(store, handlers({ tick: async () => void ranAt.push(Date.now()) }), logger, {
      pollMs: 10,
      batchSize: 1,
      busy,
      ...yields,
    });
    w.start();
    cleanups.push(() => w.stop());
    return ranAt;
  }

  /** Once the API is quiet (and the wait under way has passed), new jobs run at once. */
  async function expectPromptOnceQuiet(store: Store, ranAt: number[], waitUnderWayMs: number) {
    await new Promise((r) => setTimeout(r, waitUnderWayMs));
    const before = ranAt.length;
    await enqueueTicks(store, 3);
    await waitUntil(async () => ranAt.length === before + 3, 5000);
  }

  /**
   * A fresh store with `count` ticks enqueued and a tick worker that sees the API busy (until `api.busy` is set
   * false); returns once all have run, with the waits before each (the first counted from the worker's start).
   */
  async function ticksWhileBusy(count: number, yields: { yieldMs: number; maxYieldMs?: number }) {
    const store = await (await setup()).open();
    const api = { busy: true };
    await enqueueTicks(store, count);
    const started = Date.now();
    const ranAt = tickWorker(store, () => api.busy, yields);
    await waitUntil(async () => ranAt.length === count, 5000);
    const gaps = [ranAt[0] - started, ...ranAt.slice(1, count).map((at, i) => at - ranAt[i])];
    return { store, api, ranAt, gaps };
  }

  it('claims at most one batch per yield interval while the API is busy, and at once when it is not', async () => {
    const { store, api, ranAt, gaps } = await ticksWhileBusy(3, { yieldMs: 200 });
    expect(gaps).toHaveLength(3);
    gaps.forEach((gap) => expect(gap).toBeGreaterThanOrEqual(190));

    api.busy = false;
    await expectPromptOnceQuiet(store, ranAt, 250);
  });

  it('waits ever longer between claims while the API is busy, up to maxYieldMs, and not once it is quiet', async () => {
    const { store, api, ranAt, gaps } = await ticksWhileBusy(5, { yieldMs: 40, maxYieldMs: 160 });
    // 40, 80, 160, then 160 again: the wait doubles up to maxYieldMs and stays there.
    const least = [40, 80, 160, 160, 160];
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(least[i] - 5));

    api.busy = false;
    await expectPromptOnceQuiet(store, ranAt, 200);
  });

  it('continues a multi-step job in its own row, each step after its delay, with the new payload', async () => {
    const db = await setup();
    const clock = new TestClock();
    const store = await db.open({ clock });
    const steps: { step: number; at: number; jobs: number }[] = [];
    worker(store, {
      steps: async (job, ctx) => {
        const { step } = job.payload as { step: number };
        await ctx.store.transaction(async (tx) => {
          const jobs = (await tx.db.selectFrom('jobs').select('id').execute()).length;
          steps.push({ step, at: tx.clock.now(), jobs });
          if (step < 3) await ctx.continueIn(tx, kind('steps'), { step: step + 1 }, new Date(tx.clock.now() + HOUR));
          else await ctx.finishIn(tx);
        });
      },
    });
    await store.transaction((tx) => enqueueJob(tx, kind('steps'), { step: 1 }));
    for (const step of [1, 2]) {
      await waitUntil(async () => steps.length === step);
      clock.advance(HOUR);
    }
    await waitUntil(async () => steps.length === 3);
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
    // One row carried every step; each step waited for its run time on the store's clock.
    expect(steps.map((s) => s.jobs)).toEqual([1, 1, 1]);
    expect(steps[1].at - steps[0].at).toBeGreaterThanOrEqual(HOUR);
    expect(steps[2].at - steps[1].at).toBeGreaterThanOrEqual(HOUR);
    await waitUntil(async () => (await store.db.selectFrom('jobs').selectAll().execute()).length === 0);
  });

  it('continues a job as another kind of work in the same row, run by that kind’s handler', async () => {
    const db = await setup();
    const store = await db.open();
    const ran: { kind: string; payload: unknown; jobId: number }[] = [];
    worker(store, {
      first: async (job, ctx) => {
        ran.push({ kind: job.kind, payload: job.payload, jobId: job.id });
        await ctx.store.transaction((tx) => ctx.continueIn(tx, kind('second'), { handed: 'over' }, new Date()));
      },
      second: async (job) => {
        ran.push({ kind: job.kind, payload: job.payload, jobId: job.id });
      },
    });
    await store.transaction((tx) => enqueueJob(tx, kind('first'), { n: 1 }));
    await waitUntil(async () => ran.length === 2);
    expect(ran.map(({ kind, payload }) => ({ kind, payload }))).toEqual([
      { kind: 'first', payload: { n: 1 } },
      { kind: 'second', payload: { handed: 'over' } },
    ]);
    expect(ran[1].jobId).toBe(ran[0].jobId);
    await waitUntil(async () => (await store.db.selectFrom('jobs').selectAll().execute()).length === 0);
  });

  it('does not enqueue a job when the transaction that caused it rolls back', async () => {
    const db = await setup();
    const store = await db.open();
    await expect(
      store.transaction(async (tx) => {
        await enqueueJob(tx, kind('greet'), {});
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await store.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  });

  it('waits until run_at before running a scheduled job', async () => {
    const db = await setup();
    const clock = new TestClock();
    const store = await db.open({ clock });
    const ranAt: number[] = [];
    const runAt = new Date(clock.now() + HOUR);
    await store.transaction((tx) => enqueueJob(tx, kind('later'), {}, { runAt }));
    let nowRan = false;
    worker(store, { later: async () => void ranAt.push(clock.now()), now: async () => void (nowRan = true) });
    // A minute before run_at, a job due now runs on the same worker while the scheduled one waits.
    clock.advance(HOUR - 60_000);
    await store.transaction((tx) => enqueueJob(tx, kind('now'), {}));
    await waitUntil(async () => nowRan);
    expect(ranAt).toEqual([]);
    clock.advance(60_000);
    await waitUntil(async () => ranAt.length === 1);
    expect(ranAt[0]).toBeGreaterThanOrEqual(runAt.getTime());
  });

  it('runs jobs that share an ordering key one at a time, in order', async () => {
    const db = await setup();
    const store = await db.open();
    await store.transaction(async (tx) => {
      for (let i = 0; i < 20; i++) await enqueueJob(tx, kind('step'), { i }, { orderingKey: 'SM1' });
    });
    const order: number[] = [];
    let running = 0;
    let maxRunning = 0;
    worker(store, {
      step: async (job) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 2));
        order.push(job.payload.i);
        running--;
      },
    });
    await waitUntil(async () => order.length === 20);
    expect(order).toEqual([...Array(20).keys()]);
    expect(maxRunning).toBe(1);
  });

  it('retries a failing job and gives up after its last attempt', async () => {
    const db = await setup();
    const store = await db.open();
    await store.transaction(async (tx) => {
      await enqueueJob(tx, kind('flaky'), {}, { maxAttempts: 5 });
      await enqueueJob(tx, kind('broken'), {}, { maxAttempts: 2 });
    });
    let flakyCalls = 0;
    let brokenCalls = 0;
    worker(store, {
      flaky: async () => {
        if (++flakyCalls < 3) throw new RetryLater(10, 'not yet');
      },
      broken: async () => {
        brokenCalls++;
        throw new RetryLater(10, 'always fails');
      },
    });
    await waitUntil(async () => {
      const rows = await store.db.selectFrom('jobs').selectAll().execute();
      return flakyCalls === 3 && rows.length === 1 && rows[0].dead === 1;
    });
    const [dead] = await store.db.selectFrom('jobs').selectAll().execute();
    expect(dead).toMatchObject({ kind: 'broken', attempts: 2, last_error: 'always fails' });
    expect(brokenCalls).toBe(2);
  });

  it('runs again a job whose worker died holding its lease', async () => {
    const db = await setup();
    const store = await db.open();
    await store.transaction((tx) => enqueueJob(tx, kind('orphan'), {}));
    // A worker claims it and dies before finishing.
    expect(
      await claimJobs(store.db, store.dialect, { workerId: 'dead-worker', limit: 10, leaseMs: 200, now: Date.now() }),
    ).toHaveLength(1);
    const seen: number[] = [];
    worker(store, { orphan: async (job) => void seen.push(job.attempts) });
    await waitUntil(async () => seen.length === 1);
    expect(seen).toEqual([2]);
  });

  it.each(['finishes', 'carries on'])(
    'commits nothing of a step whose job %s after another worker took it (its lease lost)',
    async (outcome) => {
      const db = await setup();
      const store = await db.open();
      await store.transaction((tx) => enqueueJob(tx, kind('step'), {}));
      let ended: unknown;
      worker(store, {
        step: async (job, ctx) => {
          await ctx.store
            .transaction(async (tx) => {
              await enqueueJob(tx, kind('effect'), {}, { runAt: new Date(Date.now() + HOUR) });
              // Another worker took the job for dead meanwhile.
              await tx.db.updateTable('jobs').set({ locked_by: 'w-other' }).where('id', '=', job.id).execute();
              if (outcome === 'finishes') await ctx.finishIn(tx);
              else await ctx.continueIn(tx, kind('step'), {}, new Date(Date.now() + HOUR));
            })
            .catch((err: unknown) => {
              ended = err;
              throw err;
            });
        },
      });
      await waitUntil(async () => ended !== undefined);
      expect(String((ended as Error).message)).toMatch(/lease lost/);
      const kinds = await store.db.selectFrom('jobs').select('kind').execute();
      expect(kinds.map((j) => j.kind)).toEqual(['step']);
    },
  );

  it('enqueues a job of a kind once, however often asked', async () => {
    const db = await setup();
    const store = await db.open();
    for (let n = 0; n < 3; n++)
      await store.transaction((tx) => enqueueJobOnce(tx, store.dialect, kind('hourly'), { n }));
    await store.transaction((tx) => enqueueJob(tx, kind('other'), {}));
    const kinds = await store.db.selectFrom('jobs').select(['kind', 'payload']).orderBy('id').execute();
    expect(kinds.map((j) => [j.kind, JSON.parse(j.payload)])).toEqual([
      ['hourly', { n: 0 }],
      ['other', {}],
    ]);
  });

  it.runIf(engine === 'postgres')(
    'enqueues a job of a kind once when two instances ask at the same moment',
    async () => {
      const db = await setup();
      const a = await db.open();
      const b = await db.open();
      // A asks first and keeps its transaction open; B asks meanwhile, before A's job is committed.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let asked!: () => void;
      const aAsked = new Promise<void>((resolve) => (asked = resolve));
      const first = a.transaction(async (tx) => {
        await enqueueJobOnce(tx, a.dialect, kind('hourly'), { from: 'a' });
        asked();
        await held;
      });
      await aAsked;
      let bDone = false;
      const second = b
        .transaction((tx) => enqueueJobOnce(tx, b.dialect, kind('hourly'), { from: 'b' }))
        .then(() => void (bDone = true));
      try {
        await new Promise((r) => setTimeout(r, 200));
        expect(bDone).toBe(false); // B waits for A's answer rather than guessing
      } finally {
        release();
        await Promise.all([first, second]);
      }
      const jobs = await a.db.selectFrom('jobs').select('payload').where('kind', '=', 'hourly').execute();
      expect(jobs.map((j) => JSON.parse(j.payload))).toEqual([{ from: 'a' }]);
    },
  );

  it.runIf(engine === 'postgres')('two workers racing for 1,000 jobs run each exactly once', async () => {
    const db = await setup();
    const a = await db.open();
    const b = await db.open();
    await a.transaction(async (tx) => {
      for (let i = 0; i < 1000; i++) await enqueueJob(tx, kind('count'), { i });
    });
    const runs = new Map<number, string[]>();
    const handler = (name: string) => async (job: Job<AnyPayload>) => {
      runs.set(job.payload.i, [...(runs.get(job.payload.i) ?? []), name]);
    };
    const wa = worker(a, { count: handler('a') });
    const wb = worker(b, { count: handler('b') });
    await waitUntil(
      async () =>
        Number(
          (
            await a.db
              .selectFrom('jobs')
              .select((e) => e.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ) === 0,
      30_000,
    );
    await Promise.all([wa.stop(), wb.stop()]);
    expect(runs.size).toBe(1000);
    expect([...runs.values()].every((who) => who.length === 1)).toBe(true);
    const byA = [...runs.values()].filter((who) => who[0] === 'a').length;
    expect(byA).toBeGreaterThan(0);
    expect(byA).toBeLessThan(1000);
  });
});
