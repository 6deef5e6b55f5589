// `npm run bench -- cluster`: several instances of the server on one PostgreSQL database, each its own process, the
// load spread round-robin over them. First the throughput of 1, 2 and 3 instances; then a run with three, one of them
// SIGKILLed at a third of it and started again at two thirds, checked: every accepted message final, handed to the
// sandbox network exactly once (its sandbox_handovers rows), every status callback received, in order per message.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { dropPostgresSchema } from '../../server/store/db.js';
import type { BenchTools, Scenario } from './scenarios.js';
import { numberPool } from './shared.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RATE = Number(process.env.BENCH_CLUSTER_RATE ?? 600);
const SECONDS = Number(process.env.BENCH_CLUSTER_SECONDS ?? 60);
/** Each throughput round (1, 2, 3 instances), at RATE. */
const ROUND_SECONDS = Number(process.env.BENCH_CLUSTER_ROUND_SECONDS ?? 10);
const INSTANCES = 3;
const EXPECTED = ['message.sending', 'message.sent', 'message.delivered'];
const ROOT = path.resolve(import.meta.dirname, '../..');
/** Progress on stderr: a run takes minutes. */
const progress = (what: string) => console.error(`cluster: ${what}`);

interface Instance {
  url: string;
  env: NodeJS.ProcessEnv;
  child: ChildProcess | null;
  agent: http.Agent;
}

/** Callbacks received, per message sid: each event's type in the order of first arrival (by its webhook-id). */
interface Receiver {
  url: string;
  bySid: Map<string, { ids: Set<string>; types: string[]; deliveries: number; doneAt?: number }>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const bySid: Receiver['bySid'] = new Map();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { sid: string } };
      const entry = bySid.get(event.data.sid) ?? { ids: new Set<string>(), types: [], deliveries: 0 };
      const id = String(req.headers['webhook-id']);
      entry.deliveries++;
      if (!entry.ids.has(id)) {
        entry.ids.add(id);
        entry.types.push(event.type);
      }
      if (!entry.doneAt && EXPECTED.every((t) => entry.types.includes(t))) entry.doneAt = Date.now();
      bySid.set(event.data.sid, entry);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`,
    bySid,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function launch(instance: Instance): void {
  // Node itself with tsx's loader (not the tsx command, which runs a second process): one process to kill and to
  // read the CPU time of.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: instance.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // This process is pinned to core 1 (bench.ts); the instances may use both cores.
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0,1', String(child.pid)], { stdio: 'ignore' });
  } catch {
    // No taskset: nothing was pinned.
  }
  instance.child = child;
}

async function ready(instance: Instance): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${instance.url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`cluster: ${instance.url} not ready after 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function kill(instance: Instance): Promise<void> {
  const child = instance.child!;
  instance.child = null;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** CPU seconds the running instances have used so far (all their threads), from /proc; null without it. */
function cpuSeconds(instances: Instance[]): number | null {
  let total = 0;
  for (const { child } of instances) {
    const file = `/proc/${child?.pid}/stat`;
    if (!child || !fs.existsSync(file)) return null;
    const fields = fs.readFileSync(file, 'utf8').split(') ')[1].split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return total;
}

interface Offered {
  accepted: string[];
  /** Refused, or no answer (an instance killed with the request in flight). */
  failed: number;
  /** Accepted, per instance. */
  perInstance: number[];
}

/**
 * Offers `rate` messages per second for `seconds` to the live instances in turn (10 ms ticks); `at` runs once its
 * fraction of the time has passed (the kill and the restart).
 */
async function offer(
  instances: Instance[],
  live: () => number[],
  rate: number,
  seconds: number,
  body: (i: number) => string,
  apiKey: string,
  at: { fraction: number; run: () => Promise<void> }[] = [],
): Promise<Offered> {
  const result: Offered = { accepted: [], failed: 0, perInstance: instances.map(() => 0) };
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const post = (n: number, i: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        `${instances[n].url}/v1/messages`,
        { method: 'POST', headers, agent: instances[n].agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            if (res.statusCode === 201) {
              result.accepted.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { sid: string }).sid);
              result.perInstance[n]++;
            } else result.failed++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        result.failed++;
        resolve();
      });
      req.end(body(i));
    });
  const started = Date.now();
  const pending = [...at];
  // The kill and the restart run beside the load, which carries on over the live instances meanwhile.
  const events: Promise<void>[] = [];
  const inFlight = new Set<Promise<void>>();
  let offered = 0;
  while (Date.now() - started < seconds * 1000) {
    while (pending.length && Date.now() - started >= pending[0].fraction * seconds * 1000) {
      const event = pending.shift()!;
      // One after the other: a restart waits for the kill before it.
      events.push((events.at(-1) ?? Promise.resolve()).then(() => event.run()));
    }
    const due = Math.min(rate * seconds, Math.floor(((Date.now() - started) / 1000) * rate));
    const targets = live();
    while (offered < due) {
      const p = post(targets[offered % targets.length], offered);
      offered++;
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  for (const rest of pending) events.push((events.at(-1) ?? Promise.resolve()).then(() => rest.run()));
  await Promise.all(events);
  await Promise.all(inFlight);
  return result;
}

/** Waits until every accepted message has all its callbacks, or `timeoutMs` passed. */
async function drained(receiver: Receiver, sids: string[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const done = () => sids.every((sid) => receiver.bySid.get(sid)?.doneAt);
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  return done();
}

/** Completion rate (msg/s) of `sids`, from the first completion to the last. */
function completionRate(receiver: Receiver, sids: string[]): number {
  const at = sids.flatMap((sid) => receiver.bySid.get(sid)?.doneAt ?? []).sort((a, b) => a - b);
  return at.length > 1 ? (at.length - 1) / ((at[at.length - 1] - at[0]) / 1000) : 0;
}

async function runCluster({ barePostCpuMs }: BenchTools): Promise<string[]> {
  const schema = `bench_cluster_${randomBytes(4).toString('hex')}`;
  const apiKey = `tk_bench_cluster_${randomBytes(12).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cluster-'));
  const instances: Instance[] = [];
  for (let n = 0; n < INSTANCES; n++) {
    const port = await freePort();
    instances.push({
      url: `http://127.0.0.1:${port}`,
      child: null,
      agent: new http.Agent({ keepAlive: true, maxSockets: 50 }),
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        SECRET_KEY: secret,
        WEBHOOK_ALLOW_PRIVATE: 'loopback',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: path.join(dataDir, String(n)),
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        TELEPHONY_API_KEY: apiKey,
        RATE_LIMIT_PER_SECOND: '0',
        SANDBOX_RECORD_HANDOVERS: 'true',
        // The shortest lease allowed: the killed instance's jobs and webhooks run elsewhere 15 s after its death.
        JOB_LEASE_MS: '15000',
        ...(JSON.parse(process.env.BENCH_ENV || '{}') as Record<string, string>),
      },
    });
  }
  const receiver = await startReceiver();
  const db = new pg.Pool({ connectionString: DATABASE_URL, max: 1, options: `-c search_path=${schema}` });
  const lines: string[] = [];
  try {
    // One at a time: the first makes the default account, the next find it.
    launch(instances[0]);
    await ready(instances[0]);
    const pool = await numberPool({ url: instances[0].url, apiKey }, 200);
    const body = (i: number) =>
      JSON.stringify({
        from: pool[i % pool.length],
        to: '+14155550123',
        body: 'cluster',
        status_callback: receiver.url,
      });
    const drainMs = 180_000;

    // Throughput with 1, 2, 3 instances: the jobs go to whichever instance claims them, so only the instances of a
    // round run during it.
    const rounds: string[] = [];
    for (let k = 1; k <= INSTANCES; k++) {
      progress(`${k} instance(s), ${RATE} msg/s for ${ROUND_SECONDS} s`);
      if (k > 1) {
        launch(instances[k - 1]);
        await ready(instances[k - 1]);
      }
      const running = instances.slice(0, k);
      const cpuBefore = cpuSeconds(running);
      const round = await offer(instances, () => running.map((_, n) => n), RATE, ROUND_SECONDS, body, apiKey);
      const all = await drained(receiver, round.accepted, drainMs);
      const cpuAfter = cpuSeconds(running);
      const cpuMs =
        cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / round.accepted.length : null;
      const inBare = cpuMs !== null && barePostCpuMs ? ` (${(cpuMs / barePostCpuMs).toFixed(1)} bare POSTs)` : '';
      rounds.push(
        `${k}: **${completionRate(receiver, round.accepted).toFixed(0)} msg/s**` +
          `${cpuMs !== null ? `, ${cpuMs.toFixed(2)} ms CPU per message, all instances, all threads${inBare}` : ''}` +
          `${all ? '' : ` (**${round.accepted.length} accepted, not all completed in ${drainMs / 1000} s**)`}` +
          `${round.failed ? ` (${round.failed} not accepted)` : ''}`,
      );
    }
    lines.push(
      `| cluster on PostgreSQL, ${RATE} msg/s offered for ${ROUND_SECONDS} s, every callback, completion rate by ` +
        `instances: ${rounds.join('; ')} | | | | | |`,
    );

    // The run under failure: instance 2 SIGKILLed at a third, started again at two thirds.
    progress(`${INSTANCES} instances, ${RATE} msg/s for ${SECONDS} s, one killed and restarted`);
    const victim = 1;
    let down = false;
    const run = await offer(
      instances,
      () => instances.flatMap((_, n) => (down && n === victim ? [] : [n])),
      RATE,
      SECONDS,
      body,
      apiKey,
      [
        {
          fraction: 1 / 3,
          run: async () => {
            down = true;
            await kill(instances[victim]);
          },
        },
        {
          fraction: 2 / 3,
          run: async () => {
            launch(instances[victim]);
            await ready(instances[victim]);
            down = false;
          },
        },
      ],
    );
    progress(`${run.accepted.length} accepted; waiting for their callbacks`);
    const allCallbacks = await drained(receiver, run.accepted, drainMs);

    // The checks, from the database and the receiver.
    const statuses = await db.query<{ status: string; n: string }>(
      "select status, count(*) as n from messages where direction = 'outbound-api' group by status",
    );
    const byStatus = Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)]));
    const accepted = new Set(run.accepted);
    const notFinal = await db.query<{ sid: string }>(
      "select sid from messages where direction = 'outbound-api' and status not in ('delivered', 'undelivered', " +
        "'failed', 'read', 'canceled')",
    );
    const acceptedNotFinal = notFinal.rows.filter((r) => accepted.has(r.sid)).length;
    const handovers = await db.query<{ n: string; sids: string }>(
      'select count(*) as n, count(distinct sid) as sids from sandbox_handovers',
    );
    const twice = await db.query<{ sid: string; n: string }>(
      'select sid, count(*) as n from sandbox_handovers group by sid having count(*) > 1',
    );
    const outbound = statuses.rows.reduce((n, r) => n + Number(r.n), 0);
    const neverHanded = await db.query<{ n: string }>(
      "select count(*) as n from messages m where m.direction = 'outbound-api' and not exists " +
        '(select 1 from sandbox_handovers h where h.sid = m.sid)',
    );
    let outOfOrder = 0;
    let missing = 0;
    let redelivered = 0;
    for (const sid of run.accepted) {
      const entry = receiver.bySid.get(sid);
      if (!entry || !entry.doneAt) missing++;
      else if (entry.types.join() !== EXPECTED.join()) outOfOrder++;
      if (entry) redelivered += entry.deliveries - entry.ids.size;
    }
    const checks = {
      'every accepted message final': acceptedNotFinal === 0 && notFinal.rows.length === 0,
      'each message handed to the network exactly once':
        twice.rows.length === 0 && Number(neverHanded.rows[0].n) === 0 && Number(handovers.rows[0].sids) === outbound,
      'every callback received, in order per message': allCallbacks && missing === 0 && outOfOrder === 0,
    };
    const failedChecks = Object.entries(checks).filter(([, ok]) => !ok);
    const verdict = failedChecks.length ? `**FAILED: ${failedChecks.map(([name]) => name).join('; ')}**` : 'all passed';
    lines.push(
      `| cluster under failure: ${INSTANCES} instances, ${RATE} msg/s offered for ${SECONDS} s round-robin over the ` +
        `live ones, instance ${victim + 1} SIGKILLed at ${(SECONDS / 3).toFixed(0)} s and started again at ` +
        `${((2 * SECONDS) / 3).toFixed(0)} s; ${run.accepted.length} accepted (by instance: ` +
        `${run.perInstance.join(', ')}), ${run.failed} not accepted (in flight at the kill); in the database ` +
        `${outbound} outbound messages (${JSON.stringify(byStatus)}), ${notFinal.rows.length} not final; ` +
        `${handovers.rows[0].n} hand-overs for ${handovers.rows[0].sids} messages, ${twice.rows.length} handed over ` +
        `more than once, ${neverHanded.rows[0].n} never; callbacks: ${missing} messages missing one, ` +
        `${outOfOrder} out of order, ${redelivered} deliveries repeated; ` +
        `checks: ${verdict} | | | | | |`,
    );
    if (failedChecks.length) process.exitCode = 1;
    return lines;
  } finally {
    await Promise.all(instances.filter((i) => i.child).map((i) => kill(i)));
    for (const i of instances) i.agent.destroy();
    await receiver.close();
    await db.end();
    await dropPostgresSchema(DATABASE_URL, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export const clusterScenarios: Scenario[] = [{ name: 'cluster', run: (_target, tools) => runCluster(tools) }];
