// Starts the real server on an ephemeral loopback port with a fresh database (SQLite file or PostgreSQL schema).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../server/config.js';
import { start, type RunningServer } from '../../server/app.js';
import { dropPostgresSchema } from '../../server/store/db.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Clock } from '../../server/clock.js';
import { createTelephonyClient, type TelephonyClient } from '../../client/index.js';
import { openContractDoor, type ContractDoor } from './contract.js';

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
  /** With `contract`: every contract violation Prism reported on this server's traffic (empty when all is well). */
  violations(): string[];
}

export interface TestServerOptions {
  /** Route `url` through the run's `prism proxy --errors`, which checks every request and response against the spec. */
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
    // Off unless a test sets it: suites that send thousands of requests (the fuzz suite) must not meet it.
    RATE_LIMIT_PER_SECOND: '0',
    ...(engine === 'postgres'
      ? { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: schemaFor(dataDir) }
      : {}),
    ...env,
  };
}

/** One PostgreSQL schema per test database, named after its data folder so a restart finds it again. */
function schemaFor(dataDir: string): string {
  return `t_${path
    .basename(dataDir)
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(-16)}`;
}

export async function startTestServer(
  engine: Engine,
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-test-'));
  const config = loadConfig(testEnv(engine, dataDir, env));
  const schema = config.databaseSchema;
  let server = await start(config, { clock: options.clock });
  const prism: ContractDoor | null = options.contract ? await openContractDoor(() => server.port) : null;
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
      return prism?.violations() ?? [];
    },
  };
  return self;
}

export interface UseTestServerOptions extends TestServerOptions {
  engine: Engine;
  env?: Record<string, string>;
}

export interface UsedTestServer extends TestServer {
  /** A fresh account for each test (made in beforeEach). */
  readonly account: TestAccount;
}

/**
 * The fixture of a test file: starts the real server before its tests, gives each test a fresh account, stops after.
 * Every option but `engine` and `env` goes to startTestServer; use that directly for manual control (crash tests).
 */
export function useTestServer({ engine, env = {}, ...options }: UseTestServerOptions): UsedTestServer {
  let server: TestServer | undefined;
  let account: TestAccount | undefined;
  beforeAll(async () => {
    server = await startTestServer(engine, env, options);
  });
  beforeEach(async () => {
    account = await running().newAccount();
  });
  afterAll(() => server?.stop());
  const running = () => server ?? fail('the test server is not running yet (use it inside hooks and tests)');
  return {
    engine,
    get url() {
      return running().url;
    },
    get directUrl() {
      return running().directUrl;
    },
    get config() {
      return running().config;
    },
    get server() {
      return running().server;
    },
    get account() {
      return account ?? fail('no account yet: the fresh account is made before each test');
    },
    newAccount: (name) => running().newAccount(name),
    stop: (stopOptions) => running().stop(stopOptions),
    restart: () => running().restart(),
    violations: () => running().violations(),
  };
}

function fail(message: string): never {
  throw new Error(message);
}
