// The server secret keys the hashes of short secrets (OTP codes) and seals what must be read again (resent codes,
// webhook signing secrets, sandbox handsets). It is never stored in the database it protects: it is SECRET_KEY
// (required in production), or else one generated once into DATA_DIR/secret.key (mode 0600), on either engine.
// The database keeps only a check value (an HMAC of a fixed text under the secret), so an instance started with
// another secret (another machine's generated file, a changed SECRET_KEY) refuses to start instead of failing to
// open what was sealed. Versions before 009 kept the generated secret in the database: it moves to the file.
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import * as accounts from './store.js';
import { ensurePrivateDir } from '../store/db.js';
import { WebhookSecretBox } from './webhook-secrets.js';

const SECRET_FILE = 'secret.key';
/** Where versions before 009 kept the generated secret. */
const LEGACY_SETTING = 'secret_key';
const CHECK_SETTING = 'secret_check';

type Conn = Kysely<Database>;
type SecretConfig = Pick<Config, 'secretKey' | 'secretKeyPrevious' | 'dataDir'>;

/**
 * The server secret of one start, resolved once (by migration 009 when it has webhook secrets to seal, else right
 * after the migrations): `load` may be given to Store.open as its `serverSecret`.
 */
export class ServerSecret {
  private resolved?: Promise<string>;

  constructor(private readonly config: SecretConfig) {}

  readonly load = (db: Kysely<any>): Promise<string> => (this.resolved ??= this.resolve(db as Conn));

  private async resolve(db: Conn): Promise<string> {
    const legacy = await accounts.serverSetting(db, LEGACY_SETTING);
    const secret = this.config.secretKey ?? secretFromFile(this.config.dataDir, legacy);
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
      await resealWebhookSecrets(db, new WebhookSecretBox(previous), new WebhookSecretBox(secret));
      await accounts.setServerSetting(db, CHECK_SETTING, check);
      return;
    }
    throw new Error(
      'the server secret is not the one this database was set up with: every instance must use the same one. ' +
        'Set SECRET_KEY to it (without SECRET_KEY, the first instance generated it into its ' +
        `DATA_DIR/${SECRET_FILE}); ` +
        'to change it, start once with the old one in SECRET_KEY_PREVIOUS.',
    );
  }
}

/** The generated secret in DATA_DIR (made there, from the legacy database copy when there is one, if absent). */
function secretFromFile(dataDir: string, legacy: string | undefined): string {
  const file = path.join(dataDir, SECRET_FILE);
  const existing = readSecretFile(file);
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
  return readSecretFile(file)!;
}

function readSecretFile(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (text.length < 32) throw new Error(`${file} must hold the server secret (at least 32 characters)`);
  return text;
}

function checkValue(secret: string): string {
  return createHmac('sha256', secret).update('telephony server secret check').digest('base64url');
}

/** Re-seals every webhook secret from the old server secret to the new; one already re-sealed is left as it is. */
async function resealWebhookSecrets(db: Conn, from: WebhookSecretBox, to: WebhookSecretBox): Promise<void> {
  for (const { sid, webhook_secret: stored } of await accounts.storedWebhookSecrets(db)) {
    if (!WebhookSecretBox.isSealed(stored)) continue;
    let clear: string;
    try {
      clear = from.open(sid, stored);
    } catch {
      continue;
    }
    await accounts.setStoredWebhookSecret(db, sid, to.seal(sid, clear));
  }
}
