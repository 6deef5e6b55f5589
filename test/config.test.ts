import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../server/config.js';
import { CONFIG_DOCS, renderConfigDocs } from '../scripts/config-docs.js';
import { ROOT, runScript, spawnServer } from './support/run.js';
import { freePort } from './support/prism.js';
import { startTestServer } from './support/server.js';
import { createTelephonyClient } from '../client/index.js';

/** The problems loadConfig reports for `env`, one per line of its ConfigError (empty when it accepts `env`). */
function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const [head, ...lines] = err.message.split('\n');
    expect(head).toBe('Invalid configuration:');
    return lines.map((line) => line.replace(/^ {2}- /, ''));
  }
}

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: null,
      dataDir: path.resolve('./data'),
      databaseUrl: null,
      databaseQueryTimeoutMs: 30_000,
      databaseSchema: null,
      databaseSynchronousCommit: null,
      apiKey: null,
      logLevel: 'info',
      nodeEnv: 'development',
      testFailAfterWork: 'off',
      validateResponses: true,
      jobPollMs: 200,
      jobLeaseMs: 60_000,
      shutdownTimeoutMs: 10_000,
      idempotencyLeaseMs: 60_000,
      jobMaxClaims: 5,
      jobConcurrency: 100,
      apiKeyCacheMs: 1000,
      addressVerificationDelay: { ms: 5000 },
      secretKey: null,
      secretKeyPrevious: null,
      carrier: 'sandbox',
      smppUrl: null,
      smppSystemType: null,
      smppWindow: 10,
      smppTps: 50,
      smppSourceTon: 1,
      smppSourceNpi: 1,
      smppDestTon: 1,
      smppDestNpi: 1,
      smppNumbers: [],
      smppResponseTimeoutMs: 10_000,
      smppConcatTimeoutMs: 300_000,
      sandboxSentDelayMs: 100,
      sandboxDeliveryDelayMs: 200,
      sandboxSlowDeliveryMs: 5000,
      sandboxReadDelayMs: 500,
      sandboxMessagesPerSecond: 10,
      sandboxRecordHandovers: false,
      sandboxCallRingMs: 3000,
      sandboxCallSpeed: 1,
      callFetchTimeoutMs: 10_000,
      recordingMaxBytes: 8_388_608,
      webhookTimeoutMs: 10_000,
      webhookRetryBaseMs: 5000,
      webhookRetryMaxMs: 3_600_000,
      webhookRetentionDays: 30,
      webhookMaxAttempts: 15,
      webhookAllowPrivate: 'loopback',
      verifyMaxSendsPerHour: 1000,
      rateLimitPerSecond: 100,
      rateLimitBurst: 200,
      redisUrl: null,
      maxNumbersPerAccount: 1000,
      maxQueuedMessages: 100_000,
      maxOpenProxySessions: 1000,
      dashboardIdleMinutes: 30,
    });
  });

  it('turns response validation off in production unless asked', () => {
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 's'.repeat(40) }).validateResponses).toBe(false);
    expect(
      loadConfig({ NODE_ENV: 'production', SECRET_KEY: 's'.repeat(40), VALIDATE_RESPONSES: 'true' }).validateResponses,
    ).toBe(true);
  });

  it('reads an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '', DATABASE_URL: '' })).toEqual(loadConfig({}));
  });

  it.each([
    ['PORT', 'eighty', 'PORT must be an integer from 0 to 65535, got "eighty"'],
    ['PORT', '70000', 'PORT must be an integer from 0 to 65535, got "70000"'],
    ['DATABASE_URL', 'mysql://db/x', 'DATABASE_URL must be a postgres:// or postgresql:// URL, got "mysql://db/x"'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    ['NODE_ENV', 'staging', 'NODE_ENV must be one of development, production, test, got "staging"'],
    ['DATABASE_SCHEMA', 'Bad-Name', 'DATABASE_SCHEMA must be a lowercase identifier, got "Bad-Name"'],
    ['VALIDATE_RESPONSES', 'yes', 'VALIDATE_RESPONSES must be true or false, got "yes"'],
    [
      'PUBLIC_URL',
      'voice.example.com',
      'PUBLIC_URL must be an http or https URL without a query or fragment, got "voice.example.com"',
    ],
    ['CARRIER', 'kannel', 'CARRIER must be one of sandbox, smpp, got "kannel"'],
    ['JOB_LEASE_MS', '1000', 'JOB_LEASE_MS must be an integer from 5000 to 3600000, got "1000"'],
    ['JOB_CONCURRENCY', '10', 'JOB_CONCURRENCY must be an integer from 50 to 5000, got "10"'],
    ['JOB_CONCURRENCY', '100.5', 'JOB_CONCURRENCY must be an integer from 50 to 5000, got "100.5"'],
  ])('rejects %s=%s with a clear message', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(problemsOf({ [name]: value })).toEqual([message]);
  });

  it('keeps a bad secret out of the message, and masks the password of a bad DATABASE_URL', () => {
    const env = { TELEPHONY_API_KEY: 'short key', SECRET_KEY: 'too-short', DATABASE_URL: 'mysql://app:hunter2@db/x' };
    expect(problemsOf(env)).toEqual([
      'DATABASE_URL must be a postgres:// or postgresql:// URL, got "mysql://app:***@db/x"',
      'TELEPHONY_API_KEY must be 16 to 256 characters without spaces',
      'SECRET_KEY must be at least 32 characters',
    ]);
  });

  it('lists every bad value at once', () => {
    expect(problemsOf({ PORT: 'x', LOG_LEVEL: 'y' })).toEqual([
      'PORT must be an integer from 0 to 65535, got "x"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "y"',
    ]);
  });

  it('makes `npm start` exit 2 with the message when a value is bad', async () => {
    const res = await runScript('server/main.ts', [], { PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.stderr).toBe('Invalid configuration:\n  - PORT must be an integer from 0 to 65535, got "eighty"\n');
  });

  it('gives the job worker the window JOB_CONCURRENCY asks for (100 by default)', async () => {
    for (const [env, expected] of [
      [{}, 100],
      [{ JOB_CONCURRENCY: '640' }, 640],
    ] as const) {
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
      const [account] = await t.server.services.accounts.listAccounts();
      const first = await client.GET('/v1/account');
      expect(first.response.status).toBe(200);
      expect(first.data?.sid).toBe(account.sid);
      await t.restart();
      const again = await client.GET('/v1/account');
      expect(again.response.status).toBe(200);
      expect(again.data?.sid).toBe(account.sid);
      expect((await t.server.services.accounts.listAccounts()).map((a) => a.sid)).toEqual([account.sid]);
    } finally {
      await t.stop();
    }
  });

  // Two starts of a child server: slow on a loaded machine.
  it('prints the first account key once on the first start, and not on the next', { timeout: 90_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'first-start-'));
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', HOST: '127.0.0.1' };
      const first = await startAndStop(env);
      expect(first).toMatch(/Its API key \(shown only now, keep it\): tk_[A-Za-z0-9_-]{43}\n/);
      expect(first).toMatch(/Its webhook signing secret: whsec_[A-Za-z0-9+/]{32}\n/);
      // The CLI finds this server's database by its DATA_DIR: the hint says so.
      expect(first).toContain(
        'A new key at any time (with DATA_DIR set as for this server): npm run --silent cli -- keys create --account ' +
          'default\n',
      );
      const second = await startAndStop(env);
      expect(second).not.toContain('API key');
      expect(second).toContain('Telephony API listening on http://127.0.0.1:');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a start that cannot listen', () => {
  it('stops with one clear line and exit code 1 on a busy port, and creates no account', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'busy-port-'));
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    const { port } = busy.address() as net.AddressInfo;
    try {
      const res = await runScript('server/main.ts', [], { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port) });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `Cannot listen on 127.0.0.1:${port}: the port is in use by another program (stop it, or set PORT to a free ` +
          'port).\n',
      );
      expect(res.stdout).not.toContain('API key');
      const list = await runScript('scripts/cli.ts', ['accounts', 'list'], { DATA_DIR: dataDir });
      expect(JSON.parse(list.stdout)).toEqual({ data: [] });
    } finally {
      busy.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('rules between settings', () => {
  it.each([
    [
      { WEBHOOK_TIMEOUT_MS: '60000' },
      'JOB_LEASE_MS (60000) must be at least WEBHOOK_TIMEOUT_MS (60000) + 5000: a lease that ends while its webhook ' +
        'attempt may still run lets another instance claim the event and deliver it twice',
    ],
    [
      { JOB_LEASE_MS: '15000', WEBHOOK_TIMEOUT_MS: '10001' },
      'JOB_LEASE_MS (15000) must be at least WEBHOOK_TIMEOUT_MS (10001) + 5000: a lease that ends while its webhook ' +
        'attempt may still run lets another instance claim the event and deliver it twice',
    ],
    [
      { JOB_LEASE_MS: '15000', CALL_FETCH_TIMEOUT_MS: '10001' },
      'JOB_LEASE_MS (15000) must be at least CALL_FETCH_TIMEOUT_MS (10001) + 5000: a lease that ends while a ' +
        "call's instructions fetch may still run lets another instance claim it, which takes the call for " +
        'interrupted and ends it `failed`',
    ],
    [
      { WEBHOOK_RETRY_BASE_MS: '5000', WEBHOOK_RETRY_MAX_MS: '4999' },
      'WEBHOOK_RETRY_MAX_MS (4999) must be at least WEBHOOK_RETRY_BASE_MS (5000): the longest delay between ' +
        'attempts caps the first one too, so the base would never apply',
    ],
    [
      { WEBHOOK_RETENTION_DAYS: '1', WEBHOOK_MAX_ATTEMPTS: '100' },
      'WEBHOOK_RETENTION_DAYS (1) must exceed WEBHOOK_MAX_ATTEMPTS (100) × (WEBHOOK_RETRY_MAX_MS (3600000) + ' +
        'WEBHOOK_TIMEOUT_MS (10000)), here 4.2 days: retention counts from an ' +
        "event's creation, so an event still being retried past it would be removed as soon as it is given up, " +
        'before anyone could see why it failed',
    ],
    [
      { RATE_LIMIT_PER_SECOND: '100', RATE_LIMIT_BURST: '99' },
      'RATE_LIMIT_BURST (99) must be at least RATE_LIMIT_PER_SECOND (100): the burst is the most requests ' +
        'allowed within one second, so it cannot be below the rate per second',
    ],
  ])('rejects %j with the rule it breaks and why', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(problemsOf(env)).toEqual([message]);
  });

  it.each([
    // The shortest lease beside the default timeouts, and the crash tests' setting beside shorter ones.
    { JOB_LEASE_MS: '15000' },
    { JOB_LEASE_MS: '7000', WEBHOOK_TIMEOUT_MS: '2000', CALL_FETCH_TIMEOUT_MS: '2000' },
    { JOB_LEASE_MS: '65000', WEBHOOK_TIMEOUT_MS: '60000' },
    { JOB_LEASE_MS: '65000', CALL_FETCH_TIMEOUT_MS: '60000' },
    { WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '200' },
    { WEBHOOK_RETENTION_DAYS: '1' },
    { RATE_LIMIT_PER_SECOND: '100', RATE_LIMIT_BURST: '100' },
    { RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_BURST: '5' },
  ])('accepts %j, on the edge of its rule', (env) => {
    expect(problemsOf(env)).toEqual([]);
  });

  it('reports every rule broken at once', () => {
    const problems = problemsOf({ WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_RETRY_MAX_MS: '1000' });
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'JOB_LEASE_MS (60000) must be at least WEBHOOK_TIMEOUT_MS (60000) + 5000',
      'WEBHOOK_RETRY_MAX_MS (1000) must be at least WEBHOOK_RETRY_BASE_MS (5000)',
    ]);
  });

  it('checks the rules only once every value is valid, so a bad value is reported alone', () => {
    expect(problemsOf({ PORT: 'x', WEBHOOK_TIMEOUT_MS: '60000' })).toEqual([
      'PORT must be an integer from 0 to 65535, got "x"',
    ]);
  });
});

describe('the configuration reference (docs/configuration.md)', () => {
  const committed = () => fs.readFileSync(path.join(ROOT, CONFIG_DOCS), 'utf8');

  it('is what `npm run docs:config` writes from the settings', () => {
    expect(committed()).toBe(renderConfigDocs());
  });

  it('gives every setting its default, accepted values and description', () => {
    const docs = committed();
    for (const s of Object.values(SETTINGS)) {
      expect(docs).toContain(`| [\`${s.env}\`](#${s.env.toLowerCase()}) | ${s.default} |\n`);
    }
    expect(docs).toContain(
      '### `PORT`\n\nTCP port to listen on (0 picks a free one).\n\n' +
        'Default: `3000`. Accepts an integer from 0 to 65535.\n',
    );
  });

  it('misses no setting: in server/, only config.ts reads the environment', () => {
    const reads = (file: string) => fs.readFileSync(path.join(ROOT, 'server', file), 'utf8').includes('process.env');
    const readers = fs
      .readdirSync(path.join(ROOT, 'server'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && reads(file));
    expect(readers).toEqual(['config.ts']);
  });

  const slow = { timeout: 120_000 };
  it('fails the drift check of `npm test` when stale, and `npm run docs:config` rewrites it', slow, async () => {
    const tree = copyOfTheRepository();
    try {
      const docs = path.join(tree, CONFIG_DOCS);
      fs.writeFileSync(docs, committed().replace('Default: `60000`.', 'Default: `30000`.'));
      const stale = await runScript(path.join(tree, 'scripts/check-drift.ts'), [], {}, 90_000);
      expect(stale.code).toBe(1);
      expect(stale.stdout).toBe('drift check: generated/ matches spec/openapi.yaml\n');
      expect(stale.stderr).toBe(
        'docs/configuration.md is out of date with server/config.ts: ' +
          'run `npm run docs:config` and commit the result.\n',
      );

      await promisify(execFile)('npm', ['run', '--silent', 'docs:config'], { cwd: tree, timeout: 60_000 });
      expect(fs.readFileSync(docs, 'utf8')).toBe(renderConfigDocs());
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });
});

/** The one module server/config.ts imports (SMPP_URL's reading). */
const SMPP_URL_MODULE = 'server/carrier/smpp/url.ts';

/** What the drift check and `npm run docs:config` need of the repository, in a folder of its own to spoil. */
function copyOfTheRepository(): string {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'config-drift-'));
  for (const part of ['package.json', 'scripts', 'spec', 'generated', 'docs', 'server/config.ts', SMPP_URL_MODULE]) {
    fs.cpSync(path.join(ROOT, part), path.join(tree, part), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  return tree;
}

/** Runs `server/main.ts` until it says it listens, then stops it with SIGTERM; returns what it printed. */
async function startAndStop(env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const server = spawnServer({ PORT: String(port), ...env });
  const { child } = server;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${server.output()}`)), 40_000);
    child.stdout!.on('data', () => {
      if (/listening/.test(server.output())) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.kill('SIGTERM');
  await server.exited;
  return server.output();
}
