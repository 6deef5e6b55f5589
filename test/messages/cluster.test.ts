// Three instances on one PostgreSQL database, the sends spread over them, one SIGKILLed mid-run and started again:
// every message reaches a final state, is handed to the sandbox network exactly once (its sandbox_handovers rows),
// and every status callback arrives, in order per message. `npm run bench -- cluster` is the long version.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { Store, dropPostgresSchema } from '../../server/store/db.js';
import { loadConfig } from '../../server/config.js';
import { testEnv } from '../support/server.js';
import { freePort } from '../support/prism.js';
import { killServerProcess, serverReport, startServerProcess } from '../support/run.js';
import { waitUntil } from '../support/wait.js';
import { SHORT_LEASE } from '../support/lease.js';
import { startReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

const MESSAGES = 300;
const API_KEY = 'tk_cluster_test_key_0123456789abcdef';
const EXPECTED = ['message.sending', 'message.sent', 'message.delivered'];

describe.skipIf(!process.env.TEST_DATABASE_URL)('three instances on one PostgreSQL database', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });

  it(
    'hands each message to the network once and delivers every callback in order when one is killed and restarted',
    { timeout: 180_000 },
    async () => {
      // One data folder for the three: the same schema (named after it) and the same server secret file.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-cluster-'));
      const ports = [await freePort(), await freePort(), await freePort()];
      const envs = ports.map((port) =>
        testEnv('postgres', dataDir, {
          PORT: String(port),
          TELEPHONY_API_KEY: API_KEY,
          SANDBOX_SENT_DELAY_MS: '100',
          SANDBOX_DELIVERY_DELAY_MS: '200',
          SANDBOX_MESSAGES_PER_SECOND: '150',
          SANDBOX_RECORD_HANDOVERS: 'true',
          WEBHOOK_RETRY_BASE_MS: '50',
          WEBHOOK_RETRY_MAX_MS: '500',
          // The killed instance's jobs and webhooks run elsewhere once their lease ends: the shortest allowed.
          ...SHORT_LEASE,
        }),
      );
      const config = loadConfig(envs[0]);
      cleanups.push(async () => {
        await dropPostgresSchema(config.databaseUrl!, config.databaseSchema!);
        fs.rmSync(dataDir, { recursive: true, force: true });
      });
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      const urls = ports.map((port) => `http://127.0.0.1:${port}`);
      const servers: (ChildProcess | null)[] = [null, null, null];
      cleanups.push(async () => {
        for (const s of servers)
          if (s && s.exitCode === null && s.signalCode === null) await killServerProcess(s).catch(() => undefined);
      });
      const launch = async (n: number) => {
        const server = (servers[n] = startServerProcess(envs[n]));
        await waitUntil(async () => (await fetch(`${urls[n]}/readyz`)).ok, 60_000, `instance ${n} to be ready`).catch(
          (err: Error) => {
            throw new Error(`${err.message}; instance ${n} ${serverReport(server)}`);
          },
        );
      };
      // The first makes the schema, the secret and the account; the others find them.
      await launch(0);
      await Promise.all([launch(1), launch(2)]);
      const clients = urls.map((baseUrl) => createTelephonyClient({ baseUrl, apiKey: API_KEY }));
      const search = await clients[0].GET('/v1/available-phone-numbers/{country}/Local', {
        params: { path: { country: 'US' }, query: { page_size: 1 } },
      });
      const from = (
        await clients[0].POST('/v1/incoming-phone-numbers', {
          body: { PhoneNumber: search.data!.data[0].phone_number },
        })
      ).data!.phone_number;

      // Ten senders, each message to the next live instance in turn; instance 1 is killed once a third is accepted
      // and started again at two thirds (the sends carry on meanwhile).
      const sids: string[] = [];
      let down = false;
      let turn = 0;
      let failed = 0;
      // The kill and the restart, once begun (an object: TypeScript does not follow assignments made in callbacks).
      const phase: { killed?: Promise<void>; restarted?: Promise<void> } = {};
      await Promise.all(
        Array.from({ length: 10 }, async (_, lane) => {
          for (let i = lane; i < MESSAGES; i += 10) {
            const live = down ? [0, 2] : [0, 1, 2];
            const client = clients[live[turn++ % live.length]];
            const sent = await client
              .POST('/v1/messages', {
                body: { from, to: '+14155550123', body: `cluster ${i}`, status_callback: `${receiver.url}/cb` },
              })
              .catch(() => null);
            if (sent?.data) sids.push(sent.data.sid);
            else failed++;
            if (!phase.killed && sids.length >= MESSAGES / 3) {
              down = true;
              phase.killed = killServerProcess(servers[1]!);
            }
            if (phase.killed && !phase.restarted && sids.length >= (2 * MESSAGES) / 3) {
              phase.restarted = phase.killed.then(() => launch(1)).then(() => void (down = false));
            }
          }
        }),
      );
      await phase.restarted;
      // Only a request in flight to the killed instance may have gone unanswered.
      expect(failed).toBeLessThan(20);
      expect(sids.length).toBe(MESSAGES - failed);

      const store = await Store.open({ databaseUrl: config.databaseUrl, schema: config.databaseSchema! });
      cleanups.push(() => store.close());
      const outbound = () =>
        store.db.selectFrom('messages').select(['sid', 'status']).where('direction', '=', 'outbound-api').execute();
      // Every message the database holds, answered or not, reaches its final state.
      const rows = await waitUntil(
        async () => {
          const rows = await outbound();
          return rows.every((r) => r.status === 'delivered') && rows;
        },
        90_000,
        'every message to be delivered',
      );
      expect(rows.map((r) => r.sid)).toEqual(expect.arrayContaining(sids));

      const handovers = await store.db.selectFrom('sandbox_handovers').select('sid').execute();
      const perSid = new Map<string, number>();
      for (const { sid } of handovers) perSid.set(sid, (perSid.get(sid) ?? 0) + 1);
      expect([...perSid.values()].filter((n) => n !== 1)).toEqual([]);
      expect(new Set(perSid.keys())).toEqual(new Set(rows.map((r) => r.sid)));

      const bySid = new Map<string, ReceivedWebhook[]>();
      await receiver.waitFor((received) => {
        bySid.clear();
        for (const w of received) bySid.set(w.json.data.sid, [...(bySid.get(w.json.data.sid) ?? []), w]);
        return sids.every((sid) => new Set((bySid.get(sid) ?? []).map((w) => w.json.type)).size === 3);
      }, 90_000);
      // In order of first arrival (a repeated delivery of an event keeps its webhook-id).
      const outOfOrder = sids.filter((sid) => {
        const firsts = [...new Map(bySid.get(sid)!.map((w) => [w.headers['webhook-id'], w.json.type])).values()];
        return firsts.join() !== EXPECTED.join();
      });
      expect(outOfOrder).toEqual([]);
    },
  );
});
