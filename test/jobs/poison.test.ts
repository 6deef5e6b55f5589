// Poison work ends: a job or webhook event whose run never ends (its process stops each time, so it is never
// acknowledged and is claimed again once its lease runs out) is claimed JOB_MAX_CLAIMS times at most, then marked
// dead with the reason, logged once at error level and counted in /metrics; the work after it still runs.
// The real worker and delivery loop claim it, with a short lease that really runs out.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/app.js';
import { enqueueJob } from '../../server/jobs/queue.js';
import { JobWorker } from '../../server/jobs/worker.js';
import { defineJob } from '../../server/jobs/job.js';
import { ENGINES, testEnv } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver } from '../support/webhook-receiver.js';

const MAX_CLAIMS = 3;
const LEASE_MS = 150;
/**
 * The webhook events' lease: the stuck receiver answers after 5 s, so its event is claimed MAX_CLAIMS times within
 * it; a later event's attempt, from the sender thread to a receiver on loopback, needs well under a second.
 */
const EVENT_LEASE_MS = 1000;
const REASON = `claimed ${MAX_CLAIMS} times without finishing (the process running it stopped)`;
const POISON = defineJob<Record<string, never>>('test.poison');
const FINE = defineJob<{ n: number }>('test.fine');

describe.each(ENGINES)('poison work (%s)', (engine) => {
  const cleanups = useCleanups();

  /** A real server (its own worker off) on a fresh database, with a logger whose error lines the test reads. */
  async function setup() {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const store = await db.open();
    const errors: { msg: string; [field: string]: unknown }[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    const config = loadConfig(testEnv(engine, db.dataDir, { JOB_MAX_CLAIMS: String(MAX_CLAIMS) }));
    const server = await start(config, { store, worker: false, logger });
    cleanups.push(() => server.close());
    const metric = async (name: string, label: string) => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name}{${label}}`));
      return line === undefined ? 0 : Number(line.split(' ').pop());
    };
    return { store, server, config, logger, errors, metric };
  }

  it('marks a job dead after JOB_MAX_CLAIMS unfinished claims, logs it once, and runs later jobs', async () => {
    const { store, config, logger, errors, metric } = await setup();
    let runs = 0;
    let unblock!: () => void;
    // Never acknowledged while the test runs: as if its process died each time, the job's lease runs out.
    const stopped = new Promise<void>((resolve) => (unblock = resolve));
    const done: number[] = [];
    const worker = new JobWorker(
      store,
      [
        POISON.handle(async () => {
          runs++;
          await stopped;
        }),
        FINE.handle(async (job) => void done.push(job.payload.n)),
      ],
      logger,
      { pollMs: 10, leaseMs: LEASE_MS, maxClaims: config.jobMaxClaims },
    );
    worker.start();
    cleanups.push(() => worker.stop());
    cleanups.push(async () => unblock());

    await store.transaction((tx) => enqueueJob(tx, POISON, {}));
    const dead = await waitUntil(
      async () =>
        store.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', POISON.kind)
          .where('dead', '=', 1)
          .executeTakeFirst(),
      20_000,
      'the poison job to be dead',
    );
    expect(dead).toMatchObject({ claims: MAX_CLAIMS, last_error: REASON, locked_by: null });
    expect(runs).toBe(MAX_CLAIMS);

    await store.transaction((tx) => enqueueJob(tx, FINE, { n: 1 }));
    await waitUntil(async () => done.length === 1, 20_000, 'the next job to run');
    expect(runs).toBe(MAX_CLAIMS);
    expect(await metric('jobs_dead', `kind="${POISON.kind}"`)).toBe(1);
    expect(errors.filter((e) => e.msg.startsWith('job dead'))).toEqual([
      expect.objectContaining({ kind: POISON.kind, reason: REASON }),
    ]);
  });

  it('marks a webhook event dead after JOB_MAX_CLAIMS claims with no ended attempt, sends later ones', async () => {
    const { store, server, errors, metric } = await setup();
    const { services } = server;
    const { account } = await services.accounts.createAccount('poison');
    const loop = services.webhooks.deliveryLoop({
      workerId: 'w-poison',
      pollMs: 10,
      leaseMs: EVENT_LEASE_MS,
      maxClaims: server.services.config.jobMaxClaims,
    });
    loop.start();
    cleanups.push(() => loop.stop());
    // Closed before the loop stops, which then need not wait for the attempts left hanging.
    const stuckReceiver = await startReceiver();
    cleanups.push(() => stuckReceiver.close());
    // The first event's receiver answers long after a lease, so its attempt never ends before it is claimed again.
    stuckReceiver.answer = () => ({ status: 200, delayMs: 5_000 });
    // The later event goes to another receiver, which stays up.
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const enqueue = (path: string, resourceSid: string) =>
      store.transaction((tx) =>
        services.webhooks.enqueue(tx, {
          accountSid: account.sid,
          resourceSid,
          type: 'message.sent',
          url: `${path === '/stuck' ? stuckReceiver.url : receiver.url}${path}`,
          data: { path },
        }),
      );

    const stuck = await enqueue('/stuck', 'SM00000000000000000000000000000001');
    const dead = await waitUntil(
      async () =>
        store.db
          .selectFrom('webhook_events')
          .selectAll()
          .where('id', '=', stuck)
          .where('status', '=', 'dead')
          .executeTakeFirst(),
      20_000,
      'the stuck event to be dead',
    );
    // Claimed that often, and not one attempt ended (none was recorded on the event).
    expect(dead).toMatchObject({ claims: MAX_CLAIMS, attempts: 0, locked_by: null });

    // The attempts left hanging end (as they would with the process that made them); their events are a
    // resource's, delivered one at a time, so a later event would wait behind them and outlive its short lease.
    await stuckReceiver.close();
    // A later event of the same resource is no longer held back by it.
    await enqueue('/fine', 'SM00000000000000000000000000000001');
    await waitUntil(async () => receiver.received.some((r) => r.path === '/fine'), 20_000, 'the next event');
    expect(await metric('webhook_events_dead', 'type="message.sent"')).toBe(1);
    expect(errors.filter((e) => e.msg.startsWith('webhook event dead'))).toEqual([
      expect.objectContaining({ webhookId: stuck, reason: REASON }),
    ]);
  });
});
