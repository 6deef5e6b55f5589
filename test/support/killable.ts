// A server process the test can SIGKILL and start again on the same database and port, as a crash and a restart
// (the crash tests' shared setup): its own data folder (and PostgreSQL schema), removed with its process at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import { createTelephonyClient, type TelephonyClient } from '../../client/index.js';
import { loadConfig, type Config } from '../../server/config.js';
import { dropPostgresSchema } from '../../server/store/db.js';
import { freePort } from './prism.js';
import { killServerProcess, startServerProcess } from './run.js';
import { testEnv, type Engine } from './server.js';
import { waitUntil } from './wait.js';

export interface KillableServer {
  url: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  /** A client with the key the server is started with. */
  client: TelephonyClient;
  /** The running process, if any. */
  readonly process: ChildProcess | null;
  /** Starts the server (`extra` added to its environment) and waits until /readyz answers 200. */
  start(extra?: NodeJS.ProcessEnv): Promise<ChildProcess>;
  /** SIGKILLs the server's process group and waits until it has exited. */
  kill(): Promise<void>;
}

/** Stops what the file's killable servers left (their processes, then their data), after its tests. */
export function useCleanups(): (() => Promise<void>)[] {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });
  return cleanups;
}

/** A killable server on `engine` with `env` and the key `apiKey`; not started yet. */
export async function killableServer(
  engine: Engine,
  apiKey: string,
  env: Record<string, string>,
  cleanups: (() => Promise<void>)[],
): Promise<KillableServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-killable-'));
  const port = await freePort();
  const fullEnv = testEnv(engine, dataDir, { PORT: String(port), TELEPHONY_API_KEY: apiKey, ...env });
  const config = loadConfig(fullEnv);
  cleanups.push(async () => {
    if (config.databaseSchema) await dropPostgresSchema(config.databaseUrl!, config.databaseSchema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const running = (c: ChildProcess | null): c is ChildProcess =>
    c !== null && c.exitCode === null && c.signalCode === null;
  cleanups.push(async () => {
    if (running(child)) await killServerProcess(child);
  });
  return {
    url,
    env: fullEnv,
    config,
    client: createTelephonyClient({ baseUrl: url, apiKey }),
    get process() {
      return child;
    },
    async start(extra = {}) {
      child = startServerProcess({ ...fullEnv, ...extra });
      await waitUntil(async () => (await fetch(`${url}/readyz`)).ok, 60_000, 'the server to be ready');
      return child;
    },
    async kill() {
      if (running(child)) await killServerProcess(child);
    },
  };
}
