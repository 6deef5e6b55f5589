// Changing the server secret (SECRET_KEY with the old one in SECRET_KEY_PREVIOUS for one start): the webhook secrets'
// re-sealing and the new check value are one transaction, and secrets that open under neither key are named in a
// warning instead of being skipped in silence.
import { sql } from 'kysely';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { start } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import * as accounts from '../../server/accounts/store.js';
import { WebhookSecretBox } from '../../server/accounts/webhook-secrets.js';
import type { Store } from '../../server/store/db.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { ENGINES, testEnv } from '../support/server.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

/** A logger whose warnings the test reads (one parsed JSON line each). */
function capturedLogger() {
  const lines: { msg: string; accounts?: string[] }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const storedSecret = async (store: Store, sid: string) =>
  (await store.db.selectFrom('accounts').select('webhook_secret').where('sid', '=', sid).executeTakeFirstOrThrow())
    .webhook_secret;

describe.each(ENGINES)('changing the server secret (%s)', (engine) => {
  const cleanups = useCleanups();
  let database: ReturnType<typeof freshDatabase>;

  /** The test's database, dropped after the servers on it are closed (clean-ups run last first). */
  function useDatabase() {
    database = freshDatabase(engine);
    cleanups.push(() => database.dispose());
  }

  /** Starts on the test's database with these keys; the server is closed by the test's cleanups. */
  async function startWith(secretKey: string, secretKeyPrevious: string | null, logger = pino({ level: 'silent' })) {
    const config = { ...loadConfig(testEnv(engine, database.dataDir)), secretKey, secretKeyPrevious };
    const store = await database.open();
    const server = await start(config, { store, logger, worker: false });
    cleanups.push(() => server.close());
    return server;
  }

  async function accountsUnder(secretKey: string, count: number): Promise<{ sid: string; secret: string }[]> {
    const server = await startWith(secretKey, null);
    const made = [];
    for (let i = 0; i < count; i++) {
      const { account } = await server.services.accounts.createAccount(`account ${i}`);
      made.push({ sid: account.sid, secret: account.webhook_secret });
    }
    return made;
  }

  it('re-seals in one transaction: failing at the last account leaves all under the old key', async () => {
    useDatabase();
    const made = await accountsUnder(A, 3);
    const store = await database.open();
    // The account the re-sealing reaches last refuses its update, after the others were re-sealed.
    const last = (await accounts.storedWebhookSecrets(store.db)).at(-1)!.sid;
    if (engine === 'sqlite') {
      await sql
        .raw(
          `create trigger refuse before update on accounts when old.sid = '${last}' ` +
            `begin select raise(abort, 'refused'); end`,
        )
        .execute(store.db);
    } else {
      const refuse = sql`create function refuse() returns trigger language plpgsql as
        $$ begin raise exception 'refused'; end $$`;
      await refuse.execute(store.db);
      await sql
        .raw(
          `create trigger refuse before update on accounts for each row when (old.sid = '${last}') ` +
            'execute function refuse()',
        )
        .execute(store.db);
    }

    await expect(startWith(B, A)).rejects.toThrow('refused');

    for (const { sid, secret } of made)
      expect(new WebhookSecretBox(A).open(sid, await storedSecret(store, sid))).toBe(secret);
    // The check value is still the old key's: it starts alone, and the new one alone is refused.
    await startWith(A, null);
    await expect(startWith(B, null)).rejects.toThrow(/^the server secret is not the one this database was set up with/);

    await sql`drop trigger refuse${sql.raw(engine === 'postgres' ? ' on accounts' : '')}`.execute(store.db);
    await startWith(B, A);
    for (const { sid, secret } of made)
      expect(new WebhookSecretBox(B).open(sid, await storedSecret(store, sid))).toBe(secret);
    await startWith(B, null);
  });

  it('warns once, naming the accounts, about secrets that open under neither key, and re-seals the rest', async () => {
    useDatabase();
    const [kept, lost] = await accountsUnder(A, 2);
    const store = await database.open();
    const elsewhere = new WebhookSecretBox('c'.repeat(40)).seal(lost.sid, lost.secret);
    await accounts.setStoredWebhookSecret(store.db, lost.sid, elsewhere);

    const { logger, lines } = capturedLogger();
    await startWith(B, A, logger);

    const warnings = lines.filter((l) => l.msg.includes('opens under neither'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].accounts).toEqual([lost.sid]);
    expect(warnings[0].msg).toBe(
      'server secret changed: these accounts have a webhook secret that opens under neither SECRET_KEY nor ' +
        'SECRET_KEY_PREVIOUS: left as they are, their webhooks cannot be signed until they are replaced',
    );
    expect(new WebhookSecretBox(B).open(kept.sid, await storedSecret(store, kept.sid))).toBe(kept.secret);
    expect(await storedSecret(store, lost.sid)).toBe(elsewhere);
  });
});
