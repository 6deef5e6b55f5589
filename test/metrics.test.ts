// The domain metrics of GET /metrics (docs/metrics.md) after real traffic through the real server: messages, calls
// and verifications by status, the job queue, webhook events and attempts, claim latency, rate-limit refusals.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import { start } from '../server/app.js';
import { defineJob } from '../server/jobs/job.js';
import { enqueueJob } from '../server/jobs/queue.js';
import { ENGINES, startTestServer, testEnv, useTestServer } from './support/server.js';
import { accountWithNumber } from './support/numbers.js';
import { FAST_PIPELINE } from './support/messaging.js';
import { CALLS_NEVER_ANSWERED } from './support/calls.js';
import { useReceiver } from './support/webhook-receiver.js';
import { waitUntil } from './support/wait.js';
import { freshDatabase } from './support/database.js';
import { useCleanups } from './support/cleanups.js';
import { TestClock } from './support/clock.js';
import { deliveredCode, sendCode } from './verify/flow.js';
import { scrape } from './support/metrics.js';

/** The samples of one metric, series by series. */
function seriesOf(samples: Map<string, number>, name: string): Record<string, number> {
  return Object.fromEntries([...samples].filter(([key]) => key === name || key.startsWith(`${name}{`)));
}

const TEST_JOB = defineJob<{ n: number }>('test.metrics');

describe.each(ENGINES)('domain metrics (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, ...CALLS_NEVER_ANSWERED, WEBHOOK_MAX_ATTEMPTS: '2' } });
  const receiver = useReceiver();
  const failing = useReceiver();
  const cleanups = useCleanups();

  it('counts messages by status and direction, and webhook attempts and events by result', async () => {
    failing.answer = () => ({ status: 500 });
    const { account, from } = await accountWithNumber(t);
    const send = (to: string, callback: string) =>
      account.client.POST('/v1/messages', { body: { from, to, body: 'hi', status_callback: callback } });
    expect((await send('+14155550123', `${receiver.url}/ok`)).response.status).toBe(201);
    // The sandbox's unreachable handset: the message ends undelivered.
    expect((await send('+15005550002', `${failing.url}/down`)).response.status).toBe(201);
    const attempts = (s: Map<string, number>) =>
      ['delivered', 'retrying', 'given_up'].reduce(
        (n, r) => n + (s.get(`webhook_attempts_total{result="${r}"}`) ?? 0),
        0,
      );
    const samples = await waitUntil(
      async () => {
        const s = await scrape(t.url);
        const settled =
          s.get('messages{status="undelivered",direction="outbound-api"}') === 1 &&
          s.get('messages{status="delivered",direction="outbound-api"}') === 1 &&
          s.get('webhook_events_pending') === 0 &&
          attempts(s) === receiver.all.length + failing.all.length;
        return settled && s;
      },
      20_000,
      'both messages final and every webhook attempt counted',
    );
    expect(seriesOf(samples, 'messages')).toEqual({
      'messages{status="delivered",direction="outbound-api"}': 1,
      'messages{status="undelivered",direction="outbound-api"}': 1,
    });
    // Each event to the failing receiver was tried twice (WEBHOOK_MAX_ATTEMPTS): a retry, then given up.
    const failedEvents = failing.all.length / 2;
    expect(failedEvents).toBeGreaterThan(0);
    expect(seriesOf(samples, 'webhook_attempts_total')).toEqual({
      'webhook_attempts_total{result="delivered"}': receiver.received.length,
      'webhook_attempts_total{result="retrying"}': failedEvents,
      'webhook_attempts_total{result="given_up"}': failedEvents,
    });
    // Given up once each, by the type of event.
    const failedByType: Record<string, number> = {};
    for (const request of failing.all) {
      const key = `webhook_events_failed{type="${(request.json as { type: string }).type}"}`;
      failedByType[key] = (failedByType[key] ?? 0) + 0.5;
    }
    expect(seriesOf(samples, 'webhook_events_failed')).toEqual(failedByType);
    expect(samples.get('webhook_events_pending_oldest_age_seconds')).toBe(0);
    expect(samples.get('queue_claim_duration_seconds_count{queue="jobs"}')).toBeGreaterThan(0);
    expect(samples.get('queue_claim_duration_seconds_count{queue="webhooks"}')).toBeGreaterThan(0);
  });

  it('counts the groups of job transactions by outcome: on PostgreSQL only, none failed', async () => {
    const { account, from } = await accountWithNumber(t);
    const delivered = (s: Map<string, number>) => s.get('messages{status="delivered",direction="outbound-api"}') ?? 0;
    const before = delivered(await scrape(t.url));
    // Twenty sends at once: their dispatch jobs, and the network's reports after them, are claimed several at a time.
    const sent = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        account.client.POST('/v1/messages', { body: { from, to: `+1415555${String(1000 + i)}`, body: 'hi' } }),
      ),
    );
    expect(sent.map((s) => s.response.status)).toEqual(Array(20).fill(201));
    const samples = await waitUntil(
      async () => {
        const s = await scrape(t.url);
        return delivered(s) === before + 20 && s;
      },
      20_000,
      'the twenty messages delivered',
    );
    // A series counted nothing yet is not printed.
    const committed = samples.get('job_groups_total{outcome="committed"}') ?? 0;
    if (engine === 'postgres') expect(committed).toBeGreaterThan(0);
    else expect(committed).toBe(0);
    expect(samples.get('job_groups_total{outcome="failed"}') ?? 0).toBe(0);
  });

  it('counts calls by status', async () => {
    const { account, from } = await accountWithNumber(t);
    const { response } = await account.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', url: 'https://app.example.com/voice' },
    });
    expect(response.status).toBe(201);
    // The sandbox handset rings on and on (CALLS_NEVER_ANSWERED).
    const samples = await waitUntil(
      async () => {
        const s = await scrape(t.url);
        return s.get('calls{status="ringing"}') === 1 && s;
      },
      20_000,
      'the call ringing',
    );
    expect(seriesOf(samples, 'calls')).toEqual({ 'calls{status="ringing"}': 1 });
  });

  it('counts verifications by status, and their expiry jobs waiting in the queue', async () => {
    const { client } = t.account;
    const approved = await sendCode(client, { to: '+14155550142', channel: 'sms' });
    await sendCode(client, { to: '+14155550143', channel: 'sms' });
    const { code } = await deliveredCode(client, approved.to);
    const { data } = await client.POST('/v1/verify/check', { body: { to: approved.to, code } });
    expect(data?.status).toBe('approved');
    const samples = await scrape(t.url);
    expect(seriesOf(samples, 'verifications')).toEqual({
      'verifications{status="approved"}': 1,
      'verifications{status="pending"}': 1,
    });
    // Each verification's expiry is a job due in 10 minutes (valid_for): queued, not due.
    expect(samples.get('jobs_queued{kind="verification.expire"}')).toBe(2);
    expect(samples.get('jobs_due{kind="verification.expire"}')).toBe(0);
    expect(samples.get('jobs_oldest_due_age_seconds{kind="verification.expire"}')).toBe(0);
  });

  it('counts requests refused by the rate limit', async () => {
    const limited = await startTestServer(engine, { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '2' });
    cleanups.push(() => limited.stop());
    const { apiKey } = await limited.newAccount();
    // At once: six requests within a moment of each other, against a burst of two and two a second.
    const statuses = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${limited.url}/v1/messages`, { headers: { authorization: `Bearer ${apiKey}` } }).then((r) => r.status),
      ),
    );
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect((await scrape(limited.url)).get('rate_limit_refusals_total')).toBe(refused);
  });

  it('shows the queue depth and how late the oldest due job and webhook event are, by the clock', async () => {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const clock = new TestClock();
    const store = await db.open({ clock });
    // No worker: the jobs stay where they are while the clock moves.
    const server = await start(loadConfig(testEnv(engine, db.dataDir)), {
      store,
      worker: false,
      logger: pino({ level: 'silent' }),
    });
    cleanups.push(() => server.close());
    const { account } = await server.services.accounts.createAccount('metrics');
    await store.transaction(async (tx) => {
      await enqueueJob(tx, TEST_JOB, { n: 1 });
      await enqueueJob(tx, TEST_JOB, { n: 2 });
      await enqueueJob(tx, TEST_JOB, { n: 3 }, { runAt: new Date(clock.now() + 3_600_000) });
      await server.services.webhooks.enqueue(tx, {
        accountSid: account.sid,
        resourceSid: 'SM00000000000000000000000000000000',
        type: 'message.status',
        url: 'http://127.0.0.1:9/cb',
        data: {},
      });
    });
    clock.advance(90_000);
    const samples = await scrape(server.url);
    expect(samples.get('jobs_queued{kind="test.metrics"}')).toBe(3);
    expect(samples.get('jobs_due{kind="test.metrics"}')).toBe(2);
    const jobAge = samples.get('jobs_oldest_due_age_seconds{kind="test.metrics"}')!;
    expect(jobAge).toBeGreaterThanOrEqual(90);
    expect(jobAge).toBeLessThan(120);
    expect(samples.get('webhook_events_pending')).toBe(1);
    const eventAge = samples.get('webhook_events_pending_oldest_age_seconds')!;
    expect(eventAge).toBeGreaterThanOrEqual(90);
    expect(eventAge).toBeLessThan(120);
  });

  it('labels no series with a sid, a phone number or an account', async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const values = [...text.matchAll(/="([^"]*)"/g)].map((m) => m[1]);
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) {
      expect(value).not.toMatch(/^[A-Z]{2}[0-9a-f]{32}$/);
      expect(value).not.toMatch(/\d{6,}/);
    }
  });
});
