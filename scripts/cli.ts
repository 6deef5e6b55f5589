// Operator CLI: manage accounts and API keys on the configured database (safe while the server runs).
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../server/config.js';
import { Store } from '../server/store/db.js';
import { AccountService } from '../server/accounts/service.js';
import { ServerSecret } from '../server/accounts/server-secret.js';
import { WebhookSecretBox } from '../server/accounts/webhook-secrets.js';

const USAGE = `usage: npm run --silent cli -- <command>
  accounts create --name NAME     create an account and its first API key
  accounts list                   list accounts
  keys create --account AC...     add an API key to an account
  keys revoke --key SK...|KEY     revoke an API key by its sid or its value
Output is JSON on stdout. Uses DATA_DIR / DATABASE_URL / DATABASE_SCHEMA like the server.`;

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
  const secret = new ServerSecret(config);
  const store = await Store.open({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema ?? undefined,
    serverSecret: secret.load,
  });
  const accounts = new AccountService(store, new WebhookSecretBox(await secret.load(store.db)));
  try {
    const command = positionals.slice(0, 2).join(' ');
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
      case 'keys create': {
        if (!values.account) fail('keys create needs --account AC...');
        const key = await accounts.createKey(values.account);
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

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

main().catch((err: unknown) => fail(err instanceof Error ? (err.stack ?? err.message) : String(err), 1));
