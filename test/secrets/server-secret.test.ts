// The server secret lives apart from the data: SECRET_KEY (required in production), or a file of its own in
// DATA_DIR; the database keeps only a check value, so every instance on it must use the same secret.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { start } from '../../server/app.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import { newSid } from '../../server/ids.js';
import { newWebhookSecret } from '../../server/accounts/keys.js';
import { ServerSecret } from '../../server/accounts/server-secret.js';
import { WebhookSecretBox } from '../../server/accounts/webhook-secrets.js';
import type { Store } from '../../server/store/db.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { ENGINES, startTestServer, testEnv } from '../support/server.js';

const settingsOf = (store: Store) => store.db.selectFrom('server_settings').selectAll().orderBy('name').execute();

describe('SECRET_KEY in production', () => {
  it('is required, with a message saying how to make one', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      'SECRET_KEY must be set (32 characters or more, e.g. `openssl rand -base64 32`) with NODE_ENV=production',
    );
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 's'.repeat(40) }).secretKey).toBe('s'.repeat(40));
  });
});

describe.each(ENGINES)('server secret for keyed hashes and sealing (%s)', (engine) => {
  const cleanups = useCleanups();

  it('is generated once into DATA_DIR/secret.key (0600), not into the database, kept across restarts', async () => {
    const t = await startTestServer(engine);
    cleanups.push(() => t.stop());
    const first = t.server.services.secretKey;
    expect(first.length).toBeGreaterThanOrEqual(32);
    const file = path.join(t.config.dataDir, 'secret.key');
    expect(fs.readFileSync(file, 'utf8')).toBe(`${first}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const settings = await settingsOf(t.server.services.store);
    expect(settings.map((s) => s.name)).toEqual(['secret_check']);
    expect(JSON.stringify(settings)).not.toContain(first);

    await t.restart();
    expect(t.server.services.secretKey).toBe(first);
  });

  it('comes from SECRET_KEY when set, and then no file is written', async () => {
    const secret = 's'.repeat(40);
    const t = await startTestServer(engine, { SECRET_KEY: secret });
    cleanups.push(() => t.stop());
    expect(t.server.services.secretKey).toBe(secret);
    expect(fs.existsSync(path.join(t.config.dataDir, 'secret.key'))).toBe(false);
  });

  it('moves a secret kept in the database by an older version to the file, and seals webhook secrets', async () => {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const old = await db.open({ migrateTo: '008_webhook_queue' });
    const legacy = 'l'.repeat(43);
    const now = new Date().toISOString();
    const sid = newSid('account', Date.now());
    const whsec = newWebhookSecret();
    await sql`insert into server_settings (name, value) values ('secret_key', ${legacy})`.execute(old.db);
    await sql`insert into accounts (sid, name, webhook_secret, date_created, date_updated)
      values (${sid}, 'before', ${whsec}, ${now}, ${now})`.execute(old.db);
    await old.close();

    const config = loadConfig(testEnv(engine, db.dataDir));
    const store = await db.open({ serverSecret: new ServerSecret(config).load });
    const server = await start(config, { store, worker: false });
    cleanups.push(() => server.close());

    expect(server.services.secretKey).toBe(legacy);
    expect(fs.readFileSync(path.join(db.dataDir, 'secret.key'), 'utf8')).toBe(`${legacy}\n`);
    expect((await settingsOf(store)).map((s) => s.name)).toEqual(['secret_check']);
    const stored = await store.db
      .selectFrom('accounts')
      .select('webhook_secret')
      .where('sid', '=', sid)
      .executeTakeFirstOrThrow();
    expect(stored.webhook_secret).not.toContain(whsec.slice('whsec_'.length));
    expect(new WebhookSecretBox(legacy).open(sid, stored.webhook_secret)).toBe(whsec);
  });

  it('refuses to start an instance with another secret than the database was set up with', async () => {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const config = loadConfig(testEnv(engine, db.dataDir));
    const first = await start(config, { store: await db.open(), worker: false });
    cleanups.push(() => first.close());

    // Another instance on the same DATA_DIR reads the same file and agrees.
    const twin = await start(config, { store: await db.open(), worker: false });
    cleanups.push(() => twin.close());
    expect(twin.services.secretKey).toBe(first.services.secretKey);

    // One elsewhere (its own DATA_DIR, so its own generated secret), or with another SECRET_KEY, does not start.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-elsewhere-'));
    cleanups.push(async () => fs.rmSync(elsewhere, { recursive: true, force: true }));
    const refused = /^the server secret is not the one this database was set up with/;
    await expect(start({ ...config, dataDir: elsewhere }, { store: await db.open() })).rejects.toThrow(refused);
    await expect(start({ ...config, secretKey: 'x'.repeat(40) }, { store: await db.open() })).rejects.toThrow(refused);
  });

  it('changes with the old one in SECRET_KEY_PREVIOUS for a start, which re-seals the webhook secrets', async () => {
    const t = await startTestServer(engine, { SECRET_KEY: 'a'.repeat(40) });
    cleanups.push(() => t.stop());
    const account = await t.newAccount();
    t.config.secretKey = 'b'.repeat(40);
    t.config.secretKeyPrevious = 'a'.repeat(40);
    await t.restart();

    const stored = await t.server.services.store.db
      .selectFrom('accounts')
      .select('webhook_secret')
      .where('sid', '=', account.sid)
      .executeTakeFirstOrThrow();
    expect(new WebhookSecretBox('b'.repeat(40)).open(account.sid, stored.webhook_secret)).toBe(account.webhookSecret);
    expect(() => new WebhookSecretBox('a'.repeat(40)).open(account.sid, stored.webhook_secret)).toThrow();
    // Started again without the old one: the new secret is now the database's.
    t.config.secretKeyPrevious = null;
    await t.restart();
    expect(t.server.services.secretKey).toBe('b'.repeat(40));
  });
});
