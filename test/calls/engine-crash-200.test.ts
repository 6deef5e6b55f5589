// Two hundred calls live when the server is SIGKILLed, restarted on the same database: every call ends in a final
// state (resumed to `completed`, or `failed` call_interrupted when its job was running in the dead instance), each
// with exactly one final event at its status callback, within a deadline.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { dropPostgresSchema } from '../../server/store/db.js';
import { loadConfig } from '../../server/config.js';
import { ENGINES, testEnv } from '../support/server.js';
import { freePort } from '../support/prism.js';
import { killServerProcess, startServerProcess } from '../support/run.js';
import { waitUntil } from '../support/wait.js';
import { SHORT_LEASE } from '../support/lease.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { FINAL_STATUSES, holdNumber } from './support.js';

const API_KEY = 'tk_call_crash_200_test_key_0123456789';
const CALLS = 200;
/** Two minutes of call time: 12 s at 10× speed, so every call is still live when the server is killed. */
const LONG = '<Response><Pause length="120"/><Say>Goodbye</Say><Hangup/></Response>';
/** After the restart: the pauses' rest (12 s at most), the interrupted jobs' lease (7 s), and a loaded machine. */
const DEADLINE_MS = 90_000;

describe.each(ENGINES)('a server killed with 200 calls live (%s)', (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });

  it('ends each of 200 live calls with exactly one final event after a restart', { timeout: 180_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-call-crash-200-'));
    const port = await freePort();
    const env = testEnv(engine, dataDir, {
      SANDBOX_CALL_SPEED: '10',
      SANDBOX_CALL_RING_MS: '1000',
      PORT: String(port),
      TELEPHONY_API_KEY: API_KEY,
      ...SHORT_LEASE,
    });
    const config = loadConfig(env);
    cleanups.push(async () => {
      if (config.databaseSchema) await dropPostgresSchema(config.databaseUrl!, config.databaseSchema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const url = `http://127.0.0.1:${port}`;
    const ready = () => waitUntil(async () => (await fetch(`${url}/readyz`)).ok, 60_000, 'the server to be ready');
    let server = startServerProcess(env);
    cleanups.push(async () => {
      if (server.exitCode === null && server.signalCode === null) await killServerProcess(server);
    });
    await ready();
    const client = createTelephonyClient({ baseUrl: url, apiKey: API_KEY });
    const from = await holdNumber({ client });
    const sids: string[] = [];
    // In batches of 20: the server's own pace, not a burst the test itself would have to wait out.
    for (let batch = 0; batch < CALLS / 20; batch++) {
      const placed = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const to = `+1415555${String(2000 + batch * 20 + i)}`;
          const { data, error } = await client.POST('/v1/calls', {
            body: { from, to, twiml: LONG, status_callback: `${receiver.url}/events` },
          });
          if (!data) throw new Error(JSON.stringify(error));
          return data.sid;
        }),
      );
      sids.push(...placed);
    }
    const answered = () => receiver.received.filter((w) => w.json?.type === 'call.answered').length;
    await waitUntil(async () => answered() === CALLS, 30_000, 'every call to be answered');
    const finalsBefore = receiver.received.filter((w) => FINAL_STATUSES.includes(w.json?.type.slice(5))).length;
    expect(finalsBefore).toBe(0);
    await killServerProcess(server);

    server = startServerProcess(env);
    await ready();
    const finalEvents = (sid: string) =>
      receiver.received.filter((w) => w.json?.data?.sid === sid && FINAL_STATUSES.includes(w.json.type.slice(5)));
    // Deliveries are at least once: a final event the dead instance was sending may arrive twice, by its id.
    await waitUntil(async () => sids.every((sid) => finalEvents(sid).length > 0), DEADLINE_MS, 'every final event');
    for (const sid of sids) {
      const { data } = await client.GET('/v1/calls/{sid}', { params: { path: { sid } } });
      const outcome = `${data!.status} ${data!.error_code ?? ''}`.trim();
      expect(['completed', 'failed call_interrupted']).toContain(outcome);
      const events = finalEvents(sid);
      expect(new Set(events.map((w) => w.headers['webhook-id'])).size).toBe(1);
      expect(events[0].json.data).toMatchObject({ status: data!.status, error_code: data!.error_code });
    }
  });
});
