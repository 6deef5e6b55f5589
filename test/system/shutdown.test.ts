// SIGTERM under load, on a real server process: every request in flight gets its answer, no new connection is
// accepted, the jobs and webhook attempts in hand finish or are released (none left leased), and the process exits
// 0. On PostgreSQL, a job released by the stopping instance is claimed by another instance at once, not after
// JOB_LEASE_MS.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTelephonyClient, type TelephonyClient } from '../../client/index.js';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/app.js';
import { Store, dropPostgresSchema } from '../../server/store/db.js';
import { ENGINES, testEnv, type Engine } from '../support/server.js';
import { freePort } from '../support/prism.js';
import { spawnServer, type ServerProcess } from '../support/run.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { FAST_CALLS } from '../calls/support.js';

const API_KEY = 'tk_shutdown_test_key_0123456789abcd';
/** Requests in flight at the signal, their bodies sent after it over about a second. */
const HELD = 40;
const SENT_BEFORE = 60;

/** A POST /v1/messages whose headers the server has read (it answered 100 Continue), its body not sent yet. */
function holdRequest(port: number, body: string): Promise<{ send(): Promise<{ status: number; body: string }> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/messages',
      agent: false,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const answer = new Promise<{ status: number; body: string }>((done, failed) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode!, body: text }));
        res.on('error', failed);
      });
      req.on('error', failed);
    });
    answer.catch(reject);
    req.on('continue', () =>
      resolve({
        send() {
          req.end(body);
          return answer;
        },
      }),
    );
    req.flushHeaders();
  });
}

/** Whether a new connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

async function startProcess(engine: Engine, env: Record<string, string>, cleanups: (() => Promise<void>)[]) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-shutdown-'));
  const port = await freePort();
  const fullEnv = testEnv(engine, dataDir, { PORT: String(port), TELEPHONY_API_KEY: API_KEY, ...env });
  const config = loadConfig(fullEnv);
  cleanups.push(async () => {
    if (config.databaseSchema) await dropPostgresSchema(config.databaseUrl!, config.databaseSchema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const server: ServerProcess = spawnServer(fullEnv);
  cleanups.push(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server.exited;
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(async () => (await fetch(`${url}/readyz`)).ok, 60_000, 'the server to be ready');
  const client = createTelephonyClient({ baseUrl: url, apiKey: API_KEY });
  return { server, port, url, config, env: fullEnv, client };
}

async function holdNumber(client: TelephonyClient): Promise<string> {
  const search = await client.GET('/v1/available-phone-numbers/{country}/Local', {
    params: { path: { country: 'US' }, query: { page_size: 1 } },
  });
  const held = await client.POST('/v1/incoming-phone-numbers', {
    body: { PhoneNumber: search.data!.data[0].phone_number },
  });
  return held.data!.phone_number;
}

describe.each(ENGINES)('SIGTERM under load (%s)', (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });

  it(
    'answers every request in flight, refuses new ones, leaves no job or event leased, exits 0',
    { timeout: 120_000 },
    async () => {
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      // Callbacks answered only after the shutdown's bound: their attempts are in hand when it ends.
      receiver.answer = () => ({ status: 200, delayMs: 20_000 });
      const { server, port, config, client } = await startProcess(
        engine,
        { ...FAST_PIPELINE, WEBHOOK_TIMEOUT_MS: '30000', SHUTDOWN_TIMEOUT_MS: '2000', LOG_LEVEL: 'info' },
        cleanups,
      );
      const from = await holdNumber(client);
      const message = (i: number) => ({
        from,
        to: `+1415555${String(2000 + i)}`,
        body: `message ${i}`,
        status_callback: `${receiver.url}/status`,
      });
      // Load: messages on their way through the pipeline (jobs) with their callbacks (webhook attempts).
      const sent = await Promise.all(
        Array.from({ length: SENT_BEFORE }, (_, i) => client.POST('/v1/messages', { body: message(i) })),
      );
      expect(sent.map((r) => r.response.status)).toEqual(Array(SENT_BEFORE).fill(201));
      await waitUntil(async () => receiver.all.length > 0, 20_000, 'a callback in flight');
      const held = await Promise.all(
        Array.from({ length: HELD }, (_, i) => holdRequest(port, JSON.stringify(message(SENT_BEFORE + i)))),
      );

      server.child.kill('SIGTERM');
      await waitUntil(() => refused(port), 5_000, 'new connections to be refused');
      // The bodies go now: half at once, the others one by one over about a second (slow clients).
      const answers = await Promise.all(
        held.map((h, i) => new Promise((r) => setTimeout(r, i % 2 ? 0 : i * 25)).then(() => h.send())),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(HELD).fill(201));
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.output()).toContain('released the events still in hand at shutdown');

      const store = await Store.open({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        schema: config.databaseSchema ?? undefined,
      });
      try {
        const leased = async (table: 'jobs' | 'webhook_events') =>
          (await store.db.selectFrom(table).select('locked_by').where('locked_by', 'is not', null).execute()).length;
        expect({ jobs: await leased('jobs'), events: await leased('webhook_events') }).toEqual({ jobs: 0, events: 0 });
      } finally {
        await store.close();
      }
    },
  );
});

describe.runIf(ENGINES.includes('postgres'))('a job released at shutdown (postgres)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });

  it('is claimed by a second instance at once, not after JOB_LEASE_MS', { timeout: 120_000 }, async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    // The call's instructions answer after 30 s: its fetch job is in hand when the first instance stops.
    receiver.answer = (r) => (r.path === '/slow' ? { status: 200, delayMs: 30_000 } : { status: 200 });
    const first = await startProcess(
      'postgres',
      { ...FAST_CALLS, SHUTDOWN_TIMEOUT_MS: '300', JOB_LEASE_MS: '60000', CALL_FETCH_TIMEOUT_MS: '30000' },
      cleanups,
    );
    const from = await holdNumber(first.client);
    const call = await first.client.POST('/v1/calls', {
      body: { from, to: '+14155551234', url: `${receiver.url}/slow` },
    });
    expect(call.response.status).toBe(201);
    const fetches = () => receiver.all.filter((r) => r.path === '/slow').length;
    await waitUntil(async () => fetches() === 1, 20_000, 'the first instance to fetch the instructions');
    // The second instance on the same database, started while the first holds the job.
    const second = await start(loadConfig({ ...first.env, PORT: '0' }));
    cleanups.push(() => second.close({ graceMs: 0 }));

    first.server.child.kill('SIGTERM');
    expect(await first.server.exited).toEqual({ code: 0, signal: null });
    const stoppedAt = performance.now();
    await waitUntil(async () => fetches() === 2, 10_000, 'the second instance to fetch the instructions');
    expect(performance.now() - stoppedAt).toBeLessThan(5_000);
    const job = await second.services.store.db
      .selectFrom('jobs')
      .select('locked_by')
      .where('kind', '=', 'call.fetch')
      .executeTakeFirstOrThrow();
    expect(job.locked_by).toBe(second.worker.workerId);
  });
});
