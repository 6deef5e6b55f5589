import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../client/index.js';
import { ENGINES, testEnv, useTestServer } from './support/server.js';
import { runScript } from './support/run.js';

// Each command is a new node process through tsx (about 1.3 s alone, three or four times that with CI's three files
// at once on two cores), and a test runs up to seven of them.
const COMMANDS = { timeout: 90_000 };

describe.each(ENGINES)('operator CLI on the database of a running server (%s)', (engine) => {
  const t = useTestServer({ engine });
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    env = testEnv(engine, t.config.dataDir);
  });

  const cli = (...args: string[]) => runScript('scripts/cli.ts', args, env);
  const listStatus = (apiKey: string) =>
    createTelephonyClient({ baseUrl: t.url, apiKey })
      .GET('/v1/messages')
      .then((r) => r.response.status);

  it('creates an account whose key the running server accepts at once', COMMANDS, async () => {
    const created = await cli('accounts', 'create', '--name', 'Acme');
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out.account_sid).toMatch(/^AC[0-9a-f]{32}$/);
    expect(out.api_key).toMatch(/^tk_/);
    expect(await listStatus(out.api_key)).toBe(200);

    const listed = JSON.parse((await cli('accounts', 'list')).stdout);
    expect(listed.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ sid: out.account_sid, name: 'Acme', active_keys: 1 })]),
    );
  });

  it('adds and revokes keys', COMMANDS, async () => {
    const { account_sid, api_key } = JSON.parse((await cli('accounts', 'create', '--name', 'Keys')).stdout);
    const second = JSON.parse((await cli('keys', 'create', '--account', account_sid)).stdout);
    expect(second).toMatchObject({ account_sid, key_sid: expect.stringMatching(/^SK/) });
    expect(await listStatus(second.api_key)).toBe(200);

    // The server remembers a checked key for API_KEY_CACHE_MS: a revocation from another process counts after it.
    const revoked = (apiKey: string) =>
      expect.poll(() => listStatus(apiKey), { timeout: t.config.apiKeyCacheMs + 2000, interval: 50 }).toBe(401);
    expect((await cli('keys', 'revoke', '--key', second.key_sid)).code).toBe(0);
    await revoked(second.api_key);
    expect((await cli('keys', 'revoke', '--key', api_key)).code).toBe(0);
    await revoked(api_key);
    expect((await cli('keys', 'revoke', '--key', api_key)).code).toBe(1);
  });

  it('stores keys only as hashes', COMMANDS, async () => {
    const { api_key } = JSON.parse((await cli('accounts', 'create', '--name', 'Hash')).stdout);
    const rows = await t.server.services.store.db.selectFrom('api_keys').selectAll().execute();
    expect(rows.some((r) => JSON.stringify(r).includes(api_key))).toBe(false);
  });

  it(
    "shows and rotates an account's webhook secret, and takes an account by its name as well as its sid",
    COMMANDS,
    async () => {
      const created = JSON.parse((await cli('accounts', 'create', '--name', 'Named')).stdout);
      const shown = await cli('accounts', 'secret', '--account', created.account_sid);
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout)).toEqual({
        account_sid: created.account_sid,
        webhook_secret: created.webhook_secret,
        previous_secret_expires_at: null,
      });
      const rotated = JSON.parse(
        (await cli('accounts', 'secret', '--account', created.account_sid, '--rotate')).stdout,
      );
      expect(rotated).toEqual({
        account_sid: created.account_sid,
        webhook_secret: expect.stringMatching(/^whsec_/),
        previous_secret_expires_at: expect.any(String),
      });
      expect(rotated.webhook_secret).not.toBe(created.webhook_secret);
      expect(JSON.parse((await cli('accounts', 'secret', '--account', created.account_sid)).stdout)).toEqual(rotated);
      const byName = await cli('keys', 'create', '--account', 'Named');
      expect(byName.code, byName.stderr).toBe(0);
      expect(JSON.parse(byName.stdout)).toMatchObject({ account_sid: created.account_sid });
      await cli('accounts', 'create', '--name', 'Named');
      const ambiguous = await cli('keys', 'create', '--account', 'Named');
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toContain('several accounts are named "Named": give the AC... sid');
    },
  );

  it('says on stderr which database it opened', COMMANDS, async () => {
    const res = await cli('accounts', 'list');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      engine === 'sqlite' ? /^database: SQLite \/.+\/telephony\.sqlite\n$/ : /^database: PostgreSQL /,
    );
  });

  it.runIf(engine === 'postgres')(
    'refuses, in one line, a database whose server secret it lacks, and generates none',
    COMMANDS,
    async () => {
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-no-secret-'));
      try {
        const res = await runScript('scripts/cli.ts', ['accounts', 'list'], { ...env, DATA_DIR: elsewhere });
        expect(res.code).toBe(2);
        expect(res.stderr).toMatch(/^no server secret: set SECRET_KEY as the server has it, or DATA_DIR to the/);
        expect(res.stderr).toContain(`(${path.join(elsewhere, 'secret.key')} is missing)\n`);
        expect(fs.readdirSync(elsewhere)).toEqual([]);
        // Another secret than the server's: the reason, without a stack.
        const wrong = await runScript('scripts/cli.ts', ['accounts', 'list'], { ...env, SECRET_KEY: 'x'.repeat(43) });
        expect(wrong.code).toBe(1);
        expect(wrong.stderr).toMatch(/\nthe server secret is not the one this database was set up with/);
        expect(wrong.stderr).not.toContain('    at ');
      } finally {
        fs.rmSync(elsewhere, { recursive: true, force: true });
      }
    },
  );

  it('explains bad usage on stderr with a non-zero exit', COMMANDS, async () => {
    const res = await cli('accounts', 'create');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--name');
    expect((await cli('keys', 'create', '--account', 'AC' + '0'.repeat(32))).code).toBe(1);
  });
});

describe('operator CLI without a database', () => {
  it('refuses to create one for a command that only reads, and names where it looked', COMMANDS, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-empty-'));
    try {
      for (const args of [
        ['accounts', 'list'],
        ['accounts', 'secret', '--account', 'default'],
      ]) {
        const res = await runScript('scripts/cli.ts', args, { DATA_DIR: dataDir });
        expect(res.code).toBe(2);
        expect(res.stderr).toBe(
          `no database at SQLite ${path.join(dataDir, 'telephony.sqlite')}: are DATA_DIR (or DATABASE_URL and ` +
            "DATABASE_SCHEMA) the server's? The server creates it at first start.\n",
        );
      }
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
