// The server secret keys the hashes of short secrets (OTP codes) and seals what must be read again (resent codes,
// webhook signing secrets, sandbox handsets). It is never stored in the database it protects: it is SECRET_KEY
// (required in production), or else one generated once into DATA_DIR/secret.key (mode 0600), on either engine.
// The database keeps only a check value (an HMAC of a fixed text under the secret), so an instance started with
// another secret (another machine's generated file, a changed SECRET_KEY) refuses to start instead of failing to
// open what was sealed. Versions before 009 kept the generated secret in the database: it moves to the file.
// A change of secret (SECRET_KEY_PREVIOUS) re-seals the webhook secrets and records the new check value in one
// transaction: a start that fails halfway leaves every secret under the old one, and the next start does it again.
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import * as accounts from './store.js';
import { ensurePrivateDir } from '../store/db.js';
import { WebhookSecretBox } from './webhook-secrets.js';

export const SECRET_FILE = 'secret.key';
/** Where versions before 009 kept the generated secret. */
const LEGACY_SETTING = 'secret_key';
const CHECK_SETTING = 'secret_check';

type Conn = Kysely<Database>;
type SecretConfig = Pick<Config, 'secretKey' | 'secretKeyPrevious' | 'dataDir'>;
type Warn = Pick<Logger, 'warn'>;

/**
 * The server secret of one start, resolved once (by migration 009 when it has webhook secrets to seal, else right
 * after the migrations): `load` may be given to Store.open as its `serverSecret`.
 */
export class ServerSecret {
  private resolved?: Promise<string>;

  constructor(
    private readonly config: SecretConfig,
    /** For what a start should tell the operator: a secret.key tightened to 0600, webhook secrets left unreadable. */
    private readonly logger?: Warn,
  ) {}

  readonly load = (db: Kysely<any>): Promise<string> => (this.resolved ??= this.resolve(db as Conn));

  private async resolve(db: Conn): Promise<string> {
    const legacy = await accounts.serverSetting(db, LEGACY_SETTING);
    const secret = this.config.secretKey ?? secretFromFile(this.config.dataDir, legacy, this.logger);
    // Whatever the source, the secret leaves the database.
    if (legacy !== undefined) await accounts.deleteServerSetting(db, LEGACY_SETTING);
    await this.checkAgainstDatabase(db, secret);
    return secret;
  }

  /** The first start records the check value; later ones must match it (or rotate from SECRET_KEY_PREVIOUS). */
  private async checkAgainstDatabase(db: Conn, secret: string): Promise<void> {
    const check = checkValue(secret);
    const recorded = await accounts.serverSettingOnce(db, CHECK_SETTING, check);
    if (recorded === check) return;
    const previous = this.config.secretKeyPrevious;
    if (previous && recorded === checkValue(previous)) {
      const rotated = await inTransaction(db, async (trx) => {
        // The check value changes first, on the condition that it is still the old one: on PostgreSQL that locks its
        // row, so of two instances changing the secret at once the second waits, then finds it changed and re-seals
        // nothing (a secret is re-sealed once, never twice).
        if (!(await accounts.replaceServerSetting(trx, CHECK_SETTING, recorded, check)))
          return (await accounts.serverSetting(trx, CHECK_SETTING)) === check ? [] : undefined;
        return resealWebhookSecrets(trx, new WebhookSecretBox(previous), new WebhookSecretBox(secret));
      });
      if (rotated === undefined) throw notTheSecret();
      if (rotated.length > 0) {
        this.logger?.warn(
          { accounts: rotated },
          'server secret changed: these accounts have a webhook secret that opens under neither SECRET_KEY nor ' +
            'SECRET_KEY_PREVIOUS: left as they are, their webhooks cannot be signed until they are replaced',
        );
      }
      return;
    }
    throw notTheSecret();
  }
}

function notTheSecret(): Error {
  return new Error(
    'the server secret is not the one this database was set up with: every instance must use the same one. ' +
      'Set SECRET_KEY to it (without SECRET_KEY, the first instance generated it into its ' +
      `DATA_DIR/${SECRET_FILE}); ` +
      'to change it, start once with the old one in SECRET_KEY_PREVIOUS.',
  );
}

/** `fn` in a transaction: `db`'s own when it is one (migration 009's), else a new one. */
function inTransaction<T>(db: Conn, fn: (trx: Conn) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** The generated secret in DATA_DIR (made there, from the legacy database copy when there is one, if absent). */
function secretFromFile(dataDir: string, legacy: string | undefined, logger?: Warn): string {
  const file = path.join(dataDir, SECRET_FILE);
  const existing = readSecretFile(file, logger);
  if (existing !== undefined) return existing;
  ensurePrivateDir(dataDir);
  // Written whole beside it, then linked into place: of two instances starting at once on one DATA_DIR, the first
  // link wins, the other reads that secret, and nobody ever reads a half-written file.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, `${legacy ?? randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    fs.linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(draft, { force: true });
  }
  return readSecretFile(file, logger)!;
}

/**
 * The secret in `file`, if there is one. A file others may read (copied from another machine without keeping its
 * mode, say) is tightened to 0600 first, with a warning; one that cannot be tightened (someone else owns it) is
 * refused, since the secret in it is no longer the server's alone.
 */
function readSecretFile(file: string, logger?: Warn): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let text: string;
  try {
    const mode = fs.fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      try {
        fs.fchmodSync(fd, 0o600);
      } catch (err) {
        throw new Error(
          `${file} is readable by others (mode 0${mode.toString(8)}) and could not be made 0600 ` +
            `(${(err as Error).message}): make it 0600 and owned by the server's user`,
          { cause: err },
        );
      }
      logger?.warn({ file }, `${file} was readable by others (mode 0${mode.toString(8)}): made it 0600`);
    }
    text = fs.readFileSync(fd, 'utf8').trim();
  } finally {
    fs.closeSync(fd);
  }
  if (text.length < 32) throw new Error(`${file} must hold the server secret (at least 32 characters)`);
  return text;
}

function checkValue(secret: string): string {
  return createHmac('sha256', secret).update('telephony server secret check').digest('base64url');
}

/**
 * Re-seals every webhook secret from the old server secret to the new; one already under the new is left as it is.
 * Returns the sids of the accounts whose secret opens under neither (left as they are too).
 */
async function resealWebhookSecrets(db: Conn, from: WebhookSecretBox, to: WebhookSecretBox): Promise<string[]> {
  const unreadable: string[] = [];
  for (const row of await accounts.storedWebhookSecrets(db)) {
    const { sid } = row;
    // The secret before a rotation is sealed the same way, and moves with the current one.
    for (const column of ['webhook_secret', 'previous_webhook_secret'] as const) {
      const stored = row[column];
      if (!stored || !WebhookSecretBox.isSealed(stored)) continue;
      const clear = opened(from, sid, stored);
      if (clear !== undefined) await accounts.setStoredWebhookSecret(db, sid, to.seal(sid, clear), column);
      else if (opened(to, sid, stored) === undefined && column === 'webhook_secret') unreadable.push(sid);
    }
  }
  return unreadable;
}

function opened(box: WebhookSecretBox, sid: string, stored: string): string | undefined {
  try {
    return box.open(sid, stored);
  } catch {
    return undefined;
  }
}
