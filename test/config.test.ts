import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../server/config.js';
import { spawn } from 'node:child_process';
import { ROOT, runScript } from './support/run.js';
import { freePort } from './support/prism.js';
import { startTestServer } from './support/server.js';
import { createTelephonyClient } from '../client/index.js';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, databaseUrl: null, apiKey: null, logLevel: 'info', nodeEnv: 'development', validateResponses: true });
    expect(config.dataDir).toBe(path.resolve('./data'));
  });

  it('turns response validation off in production unless asked', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).validateResponses).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', VALIDATE_RESPONSES: 'true' }).validateResponses).toBe(true);
  });

  it.each([
    ['PORT', 'eighty', /PORT must be an integer/],
    ['PORT', '70000', /PORT must be an integer from 0 to 65535/],
    ['DATABASE_URL', 'mysql://localhost/db', /DATABASE_URL must start with postgres/],
    ['TELEPHONY_API_KEY', 'short', /TELEPHONY_API_KEY must be 16 to 256/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['NODE_ENV', 'staging', /NODE_ENV must be one of/],
    ['DATABASE_SCHEMA', 'Bad-Name', /DATABASE_SCHEMA must be a lowercase identifier/],
    ['JOB_LEASE_MS', '1000', /JOB_LEASE_MS must be an integer from 15000/],
    ['JOB_CONCURRENCY', '10', /JOB_CONCURRENCY must be an integer from 50 to 5000/],
  ])('rejects %s=%s with a clear message', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('lists every bad value at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/PORT[\s\S]*LOG_LEVEL/);
  });

  it('makes `npm start` exit with the message when a value is bad', async () => {
    const res = await runScript('server/main.ts', [], { PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('PORT must be an integer');
  });

  it('gives the job worker the window JOB_CONCURRENCY asks for (100 by default)', async () => {
    for (const [env, expected] of [[{}, 100], [{ JOB_CONCURRENCY: '640' }, 640]] as const) {
      const t = await startTestServer('sqlite', env);
      try {
        expect(t.server.worker.maxRunning).toBe(expected);
      } finally {
        await t.stop();
      }
    }
  });

  it('makes sure an account holds TELEPHONY_API_KEY, across restarts', async () => {
    const apiKey = 'tk_configured-for-dev-0123456789';
    const t = await startTestServer('sqlite', { TELEPHONY_API_KEY: apiKey });
    try {
      const client = createTelephonyClient({ baseUrl: t.url, apiKey });
      expect((await client.GET('/v1/messages')).response.status).not.toBe(401);
      await t.restart();
      expect((await client.GET('/v1/messages')).response.status).not.toBe(401);
      expect(await t.server.services.accounts.listAccounts()).toHaveLength(1);
    } finally {
      await t.stop();
    }
  });

  it('prints the first account key once on the first start, and not on the next', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'first-start-'));
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', HOST: '127.0.0.1' };
    const first = await startAndStop(env);
    const key = /API key \(shown only now, keep it\): (tk_\S+)/.exec(first)?.[1];
    expect(key).toBeTruthy();
    const second = await startAndStop(env);
    expect(second).not.toContain('API key');
    expect(second).toContain('listening');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

/** Runs `server/main.ts` until it says it listens, then stops it with SIGTERM; returns its stdout. */
async function startAndStop(env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/main.ts'], { cwd: ROOT, env: { PATH: process.env.PATH, PORT: String(port), ...env } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
    child.stdout.on('data', () => {
      if (/listening/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  return out;
}
