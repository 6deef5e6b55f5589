// A server for the benchmark to load, run in its own process (pinned to its own core by bench.ts):
// `bare` is a bare Express JSON route, the baseline; `api` is the real server on a fresh SQLite folder.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import express from 'express';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/app.js';
import { dropPostgresSchema } from '../../server/store/db.js';

const kind = process.argv[2];

// CPU time used so far, from /proc (Linux; clock ticks of 10 ms): the bench asks before and after a load.
function cpuSeconds(file: string): number {
  const fields = fs.readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
// The main thread's time on a CPU in nanoseconds, from its schedstat (kernels with schedstats; its stat's ticks
// otherwise): a load of 1,500 messages is some 70 ticks, so the ticks alone would move a ratio of two loads by 3%.
function mainCpuSeconds(task: string): number {
  try {
    return Number(fs.readFileSync(`${task}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
  } catch {
    return cpuSeconds(`${task}/stat`);
  }
}
// How late the event loop ran a 10 ms timer, since the bench last asked: its longest stall is what every request in
// flight at that moment waited out.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
// Time spent in garbage collection so far (ms, the pauses V8 reports on the main thread).
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });
process.on('message', (m) => {
  if (m === 'cpu') {
    const main = `/proc/${process.pid}/task/${process.pid}`;
    process.send!({
      cpu: fs.existsSync(main)
        ? { main: mainCpuSeconds(main), all: cpuSeconds(`/proc/${process.pid}/stat`), gcMs }
        : null,
    });
  } else if (m === 'loop') {
    process.send!({ loop: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 } });
    loopDelay.reset();
  }
});

if (kind === 'bare') {
  const app = express();
  app.use(express.json());
  app.get('/bare', (_req, res) => void res.json({ status: 'ok' }));
  app.post('/bare', (req, res) => void res.status(201).json({ received: req.body as unknown }));
  const server = app.listen(0, '127.0.0.1', () => {
    process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
} else {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const env = JSON.parse(process.env.BENCH_ENV || '{}') as Record<string, string>;
  const config = loadConfig({
    NODE_ENV: 'production',
    // Production requires a server secret; the bench's database is thrown away, so any will do.
    SECRET_KEY: randomBytes(32).toString('base64url'),
    // The bench's webhook receivers listen on loopback, which production refuses by default.
    WEBHOOK_ALLOW_PRIVATE: 'loopback',
    LOG_LEVEL: 'warn',
    PORT: '0',
    DATA_DIR: dataDir,
    // The loads come from one account, far above any request rate limit: off unless BENCH_ENV sets it.
    RATE_LIMIT_PER_SECOND: '0',
    // On PostgreSQL (a scenario's DATABASE_URL), a fresh schema, dropped at the end.
    ...(env.DATABASE_URL ? { DATABASE_SCHEMA: `bench_${randomBytes(4).toString('hex')}` } : {}),
    ...env,
  });
  const server = await start(config);
  const { key } = await server.services.accounts.createAccount('bench');
  process.send!({ url: server.url, apiKey: key.api_key });
  // The dashboard scenario's data, written into this server's database by its own store (dashboard-seed.ts).
  // More accounts, for a load that would pass one account's limits (the verify scenario's hourly cap of sends).
  process.on('message', (m) => {
    if (typeof m !== 'object' || m === null || !('keys' in m)) return;
    void (async () => {
      const keys: string[] = [];
      for (let i = 0; i < Number(m.keys); i++)
        keys.push((await server.services.accounts.createAccount(`bench ${i + 2}`)).key.api_key);
      process.send!({ keys });
    })();
  });
  process.on('message', (m) => {
    if (m !== 'seeded') return;
    void import('./dashboard-seed.js')
      .then(({ seed }) => seed(server.services, key.account_sid))
      .then((seeded) => process.send!({ seeded }));
  });
  // A failed close still rejects loudly (Node ends the process on an unhandled rejection).
  process.on('disconnect', () => {
    void server.close().then(async () => {
      if (config.databaseUrl && config.databaseSchema)
        await dropPostgresSchema(config.databaseUrl, config.databaseSchema);
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}
