// /readyz tells the truth: 503 with the reason while the database is unreachable, lacks a migration of this version
// or (SQLite) its file is gone, and 200 again by itself once that is undone; a change is logged once, at warn.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { start, type RunningServer } from '../../server/app.js';
import { SQLITE_FILE, dropPostgresSchema } from '../../server/store/db.js';
import { migrationsFor } from '../../server/store/migrations/index.js';
import { ENGINES, testEnv, type Engine } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

/** The server with its log lines kept, on `databaseUrl` when given (PostgreSQL through the test's proxy). */
async function startLogged(engine: Engine, env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-ready-'));
  const config = loadConfig(testEnv(engine, dataDir, env));
  const lines: { level: number; msg: string; reason?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const server = await start(config, { logger: pino({ level: 'info' }, sink) });
  return {
    server,
    dataDir,
    lines,
    async stop() {
      await server.close();
      if (config.databaseSchema) await dropPostgresSchema(config.databaseUrl!, config.databaseSchema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function readiness(server: RunningServer) {
  const res = await fetch(`${server.url}/readyz`);
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
}

const waitForStatus = (server: RunningServer, status: number, what: string) =>
  waitUntil(async () => ((await readiness(server)).status === status ? readiness(server) : undefined), 10_000, what);

describe.each(ENGINES)('readiness (%s)', (engine) => {
  let t: Awaited<ReturnType<typeof startLogged>>;
  beforeAll(async () => {
    t = await startLogged(engine);
  });
  afterAll(() => t.stop());

  it('answers 503 naming a migration the database lacks, and 200 once it has it again, without a restart', async () => {
    const db = t.server.services.store.db;
    const last = Object.keys(migrationsFor(engine)).at(-1)!;
    const row = await sql<{ name: string; timestamp: string }>`select * from kysely_migration where name = ${last}`
      .execute(db)
      .then((r) => r.rows[0]);
    await sql`delete from kysely_migration where name = ${last}`.execute(db);
    const pending = await waitForStatus(t.server, 503, 'a 503 for the pending migration');
    expect(pending.type).toMatch(/^application\/problem\+json/);
    expect(pending.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(pending.body.detail).toContain(last);
    await sql`insert into kysely_migration (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(db);
    expect((await waitForStatus(t.server, 200, 'readiness again')).body).toEqual({ status: 'ok', database: 'ok' });
  });

  it('logs a change of readiness once, at warn, and no failed request however often it is polled', async () => {
    const from = t.lines.length;
    await sql`update kysely_migration set name = 'renamed' where name = ${'001_core'}`.execute(
      t.server.services.store.db,
    );
    await waitForStatus(t.server, 503, 'a 503');
    // Polled for over two seconds: the database is asked again each second (its answer is reused in between).
    for (let n = 0; n < 6; n++) {
      expect((await readiness(t.server)).status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    await sql`update kysely_migration set name = '001_core' where name = 'renamed'`.execute(t.server.services.store.db);
    await waitForStatus(t.server, 200, 'readiness again');
    const logged = t.lines.slice(from);
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
    expect(logged.filter((l) => l.msg === 'not ready')).toEqual([
      expect.objectContaining({ level: 40, reason: expect.stringContaining('001_core') }),
    ]);
    expect(logged.filter((l) => l.msg === 'ready again')).toHaveLength(1);
  });
});

describe('readiness with the SQLite file gone', () => {
  let t: Awaited<ReturnType<typeof startLogged>>;
  beforeAll(async () => {
    t = await startLogged('sqlite');
  });
  afterAll(() => t.stop());

  it('answers 503 while the database file is removed, and 200 once it is back', async () => {
    const file = path.join(t.dataDir, SQLITE_FILE);
    fs.renameSync(file, `${file}.away`);
    try {
      const from = t.lines.length;
      const gone = await waitForStatus(t.server, 503, 'a 503 for the missing file');
      // The public answer names no path; the log does.
      expect(gone.body.detail).toBe('The database file cannot be read.');
      expect(t.lines.slice(from).find((l) => l.msg === 'not ready')).toMatchObject({
        cause: expect.stringContaining(SQLITE_FILE),
      });
    } finally {
      fs.renameSync(`${file}.away`, file);
    }
    await waitForStatus(t.server, 200, 'readiness again');
  });
});

/**
 * A loopback TCP proxy to PostgreSQL that the test can cut (every connection closed, new ones refused), silence (every
 * connection open stays open and carries nothing more, either way, as over a network path that drops packets; new
 * ones too, until mended) and mend.
 */
async function startProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  let silent = false;
  /** Connections open when the proxy was silenced: silent for good. */
  const dead = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(from);
      from.on('close', () => sockets.delete(from));
      from.on('error', () => undefined);
      from.on('data', (data: Buffer) => {
        if (!silent && !dead.has(client)) to.write(data);
      });
      from.on('end', () => to.end());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    silence() {
      silent = true;
      for (const s of sockets) dead.add(s);
    },
    mend() {
      cut = false;
      silent = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A request the database did not answer: 503 service_unavailable, Retry-After, problem+json. */
function expectDatabaseUnavailable(res: Response, body: unknown) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(res.headers.get('retry-after')).toBe('5');
  expect(body).toMatchObject({
    code: 'service_unavailable',
    detail: 'The database did not answer in time; retry shortly.',
  });
}

const QUERY_TIMEOUT_MS = 2000;
/** How long a request waits for a connection of the pool at most (db.ts). */
const POOL_WAIT_MS = 10_000;
const API_KEY = 'tk_readiness_test_key_0123456789';

describe.runIf(ENGINES.includes('postgres'))('readiness with PostgreSQL unreachable', () => {
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let t: Awaited<ReturnType<typeof startLogged>>;
  beforeAll(async () => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    proxy = await startProxy(target);
    const through = new URL(target);
    through.host = `127.0.0.1:${proxy.port}`;
    t = await startLogged('postgres', {
      DATABASE_URL: through.href,
      DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      TELEPHONY_API_KEY: API_KEY,
    });
  });
  afterAll(async () => {
    proxy.mend();
    await t.stop();
    await proxy.close();
  });

  it('answers 503 while the database cannot be reached, and 200 once it can, without a restart', async () => {
    proxy.cut();
    const down = await waitForStatus(t.server, 503, 'a 503 for the unreachable database');
    expect(down.body).toMatchObject({ code: 'service_unavailable' });
    expect(down.body.detail).toMatch(/^The database (does not answer|did not answer)/);
    // Readiness's answers are not failed requests.
    expect(t.lines.filter((l) => l.msg === 'request failed')).toEqual([]);
    // A request of the API, which would read the database, answers 503 too: a fault of the moment, to retry.
    const refused = await fetch(`${t.server.url}/v1/messages`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expectDatabaseUnavailable(refused, await refused.json());
    proxy.mend();
    await waitForStatus(t.server, 200, 'readiness again');
  });

  it('answers 503 while the database is silent, and 200 by itself once it answers on new connections', async () => {
    await waitForStatus(t.server, 200, 'readiness first');
    proxy.silence();
    const down = await waitForStatus(t.server, 503, 'a 503 for the silent database');
    expect(down.body.detail).toMatch(/^The database (does not answer|did not answer)/);
    // New connections answer again; the ones open before stay silent, as a dead network path leaves them.
    proxy.mend();
    expect((await waitForStatus(t.server, 200, 'readiness again')).body).toEqual({ status: 'ok', database: 'ok' });
    // The silent connections closed, so that the server's own queries on them end and it can stop.
    proxy.cut();
    proxy.mend();
  });

  it('fails a request in bounded time while the database is silent, then serves again by itself', async () => {
    await waitForStatus(t.server, 200, 'readiness first');
    const list = () => fetch(`${t.server.url}/v1/messages`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect((await list()).status).toBe(200);
    proxy.silence();
    const started = performance.now();
    const failed = await list();
    const took = performance.now() - started;
    expectDatabaseUnavailable(failed, await failed.json());
    // Its statement failed at the deadline, or it waited for a connection at most the pool's 10 s (every connection
    // held by a statement on a silent one, and new ones silent too) and failed then. Without the deadline it waits
    // on the silent connection until the kernel gives it up, for minutes.
    expect(took).toBeLessThan(POOL_WAIT_MS + QUERY_TIMEOUT_MS + 3000);
    // The connections open before stay silent; each is closed as a statement on it passes the deadline, and the
    // requests after are served on new ones, without a restart (nor the proxy closing them, as the test above does).
    proxy.mend();
    const served = await waitUntil(
      async () => ((await list()).status === 200 ? true : undefined),
      30_000,
      'a request served again',
    );
    expect(served).toBe(true);
  });
});
