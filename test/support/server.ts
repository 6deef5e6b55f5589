// Starts the real server on an ephemeral loopback port with a fresh database (SQLite file or PostgreSQL schema).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../server/config.js';
import { start, type RunningServer } from '../../server/app.js';
import { dropPostgresSchema } from '../../server/store/db.js';
import type { Clock } from '../../server/clock.js';
import { createTelephonyClient, type TelephonyClient } from '../../client/index.js';
import { startPrismProxy, type Prism } from './prism.js';

export type Engine = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const ENGINES: Engine[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestAccount {
  sid: string;
  apiKey: string;
  webhookSecret: string;
  client: TelephonyClient;
}

export interface TestServer {
  engine: Engine;
  /** Where tests send traffic: the server itself, or the Prism contract proxy in front of it. */
  url: string;
  /** The server itself, never proxied (for error-path requests Prism would answer on its own). */
  directUrl: string;
  config: Config;
  server: RunningServer;
  /** A fresh account with its own key and typed client, so tests never share data by accident. */
  newAccount(name?: string): Promise<TestAccount>;
  /** Stops the server; with `keepData` the database stays for a restart. */
  stop(options?: { keepData?: boolean }): Promise<void>;
  /** Stops and starts again on the same database and port. */
  restart(): Promise<void>;
  /** With `contract`: every contract violation Prism reported so far (empty when all is well). */
  violations(): string[];
}

export interface TestServerOptions {
  /** Route `url` through `prism proxy --errors`, which checks every request and response against the spec. */
  contract?: boolean;
  /** The server's clock (kept across restarts): a TestClock lets the test move time instead of sleeping. */
  clock?: Clock;
}

export function testEnv(engine: Engine, dataDir: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    JOB_POLL_MS: '20',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: schemaFor(dataDir) } : {}),
    ...env,
  };
}

/** One PostgreSQL schema per test database, named after its data folder so a restart finds it again. */
function schemaFor(dataDir: string): string {
  return `t_${path.basename(dataDir).replace(/[^a-z0-9]/gi, '').toLowerCase().slice(-16)}`;
}

export async function startTestServer(engine: Engine, env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-test-'));
  const config = loadConfig(testEnv(engine, dataDir, env));
  const schema = config.databaseSchema;
  let server = await start(config, { clock: options.clock });
  const prism: Prism | null = options.contract ? await startPrismProxy(server.url) : null;
  const url = () => prism?.url ?? server.url;

  const self: TestServer = {
    engine,
    config,
    get url() {
      return url();
    },
    get directUrl() {
      return server.url;
    },
    get server() {
      return server;
    },
    async newAccount(name = 'test') {
      const { account, key } = await server.services.accounts.createAccount(name);
      return {
        sid: account.sid,
        apiKey: key.api_key,
        webhookSecret: account.webhook_secret,
        client: createTelephonyClient({ baseUrl: url(), apiKey: key.api_key }),
      };
    },
    async stop(options = {}) {
      await prism?.stop();
      await server.close();
      if (options.keepData) return;
      if (schema) await dropPostgresSchema(config.databaseUrl!, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    async restart() {
      const port = server.port;
      await server.close();
      // Let the clients of this process see that their kept-alive connections were closed (a real restart takes
      // longer than one turn of the event loop); else one may send its next request down a closed socket.
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Same port, so clients made before the restart keep working.
      server = await start({ ...config, port }, { clock: options.clock });
    },
    violations() {
      return prismViolations(prism?.output() ?? '');
    },
  };
  return self;
}

/** Prism's log lines that report a request or response breaking the spec. */
export function prismViolations(output: string): string[] {
  return output.split('\n').filter((line) => /violation|✖/i.test(line) && !/info/i.test(line.slice(0, 40)));
}
