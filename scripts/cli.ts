// Operator CLI: manage accounts and API keys on the configured database (safe while the server runs).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ConfigError, loadConfig, type Config } from '../server/config.js';
import { SQLITE_FILE, Store } from '../server/store/db.js';
import { AccountService } from '../server/accounts/service.js';
import { SECRET_FILE, ServerSecret } from '../server/accounts/server-secret.js';
import { WebhookSecretBox } from '../server/accounts/webhook-secrets.js';

const USAGE = `usage: npm run --silent cli -- <command>
  accounts create --name NAME     create an account and its first API key
  accounts list                   list accounts
  accounts secret --account AC... [--rotate]
                                  show an account's webhook signing secret, or replace it (the old one
                                  keeps signing beside the new one for 24 hours)
  keys create --account AC...     add an API key to an account
  keys revoke --key SK...|KEY     revoke an API key by its sid or its value
--account takes an account's sid or its name (the first start's account is named "default").
Output is JSON on stdout; stderr says which database was opened. Uses DATA_DIR / DATABASE_URL / DATABASE_SCHEMA
like the server; only "accounts create" creates a database that does not exist yet.`;

/**
 * Commands that read (or change an account that must exist): they refuse to create a database that is not there (a
 * wrong DATA_DIR, a typo).
 */
const READ_ONLY = new Set(['accounts list', 'accounts secret']);

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
      rotate: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length < 2) fail(USAGE, values.help ? 0 : 2);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const command = positionals.slice(0, 2).join(' ');
  const schema = config.databaseSchema ? `, schema ${config.databaseSchema}` : '';
  const where = config.databaseUrl
    ? `PostgreSQL ${redactPassword(config.databaseUrl)}${schema}`
    : `SQLite ${path.resolve(config.dataDir, SQLITE_FILE)}`;
  const exists = await databaseExists(config);
  if (READ_ONLY.has(command) && !exists) {
    const settings = 'DATA_DIR (or DATABASE_URL and DATABASE_SCHEMA)';
    fail(`no database at ${where}: are ${settings} the server's? The server creates it at first start.`);
  }
  // A database set up already was with the server's secret: a new one generated here could open nothing of it.
  const secretFile = path.join(config.dataDir, SECRET_FILE);
  if (exists && !config.secretKey && !fs.existsSync(secretFile)) {
    fail(
      `no server secret: set SECRET_KEY as the server has it, or DATA_DIR to the server's (${secretFile} is missing)`,
    );
  }
  process.stderr.write(`database: ${where}\n`);
  const secret = new ServerSecret(config);
  const store = await Store.open({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema ?? undefined,
    serverSecret: secret.load,
  });
  const accounts = new AccountService(store, new WebhookSecretBox(await secret.load(store.db)));
  try {
    const accountSid = async () => {
      if (!values.account) fail(`${command} needs --account AC... (or an account's name, e.g. default)`);
      const sids = await accounts.accountsNamed(values.account);
      if (sids.length > 1) fail(`several accounts are named "${values.account}": give the AC... sid`);
      return sids[0] ?? fail(`no account ${values.account}`, 1);
    };
    switch (command) {
      case 'accounts create': {
        const name = values.name?.trim();
        if (!name || name.length > 128) fail('accounts create needs --name NAME (1 to 128 characters)');
        const { account, key } = await accounts.createAccount(name);
        print({
          account_sid: account.sid,
          api_key: key.api_key,
          key_sid: key.key_sid,
          webhook_secret: account.webhook_secret,
        });
        break;
      }
      case 'accounts list':
        print({ data: await accounts.listAccounts() });
        break;
      case 'accounts secret': {
        const sid = await accountSid();
        const secret = values.rotate ? (await accounts.rotateWebhookSecret(sid))! : await accounts.webhookSecret(sid);
        print({ account_sid: sid, ...secret });
        break;
      }
      case 'keys create': {
        const key = await accounts.createKey(await accountSid());
        if (!key) fail(`no account ${values.account}`, 1);
        print(key);
        break;
      }
      case 'keys revoke': {
        if (!values.key) fail('keys revoke needs --key SK... or the key itself');
        if (!(await accounts.revokeKey(values.key))) fail('no active key matched', 1);
        print({ revoked: true });
        break;
      }
      default:
        fail(`unknown command "${command}"\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
}

function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(DATABASE_URL)';
  }
}

/** Whether the configured database holds this server's tables already (without creating anything). */
async function databaseExists(config: Config): Promise<boolean> {
  if (!config.databaseUrl) return fs.existsSync(path.join(config.dataDir, SQLITE_FILE));
  const client = new pg.Client({ connectionString: config.databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query(
      'select 1 from information_schema.tables ' +
        "where table_name = 'accounts' and table_schema = coalesce($1, current_schema())",
      [config.databaseSchema ?? null],
    );
    return rows.length > 0;
  } catch (err) {
    fail(`cannot reach the database ${redactPassword(config.databaseUrl)}: ${(err as Error).message}`, 1);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

// A failure is told in one line (the server secret that does not match, a database that went away); CLI_DEBUG=1 adds
// the stack.
main().catch((err: unknown) => {
  const message = err instanceof Error ? (process.env.CLI_DEBUG ? (err.stack ?? err.message) : err.message) : err;
  fail(String(message), 1);
});
