// SQL of accounts, their API keys and settings, and the server's own settings (SQLite and PostgreSQL alike).
import type { Db, Tx } from '../store/db.js';
import type { AccountRow, ApiKeyRow } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

export type Account = Pick<AccountRow, 'sid' | 'name'>;

/** Runs on every API request. */
const accountByKeyHash = prepared((db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.sid', 'api_keys.account_sid')
    .select(['accounts.sid', 'accounts.name'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.date_revoked', 'is', null),
);
/** Runs for every batch of webhooks delivered. */
const secretsOf = prepared((db, accountSids: string[]) =>
  db
    .selectFrom('accounts')
    .select(['sid', 'webhook_secret', 'previous_webhook_secret', 'previous_webhook_secret_expires'])
    .where('sid', 'in', accountSids),
);

/** An account's stored (sealed) signing secrets: the current one, and the one before the last rotation. */
export interface StoredSecrets {
  current: string;
  previous: string | null;
  /** Until when `previous` still signs (ISO 8601). */
  previousExpires: string | null;
}

/** The account a live (unrevoked) key belongs to. */
export function accountByApiKeyHash(db: Conn, keyHash: string): Promise<Account | undefined> {
  return accountByKeyHash.first(db, keyHash);
}

/** The sealed webhook signing secrets of these accounts, by account sid (see webhook-secrets.ts). */
export async function webhookSecrets(db: Conn, accountSids: string[]): Promise<Map<string, StoredSecrets>> {
  return new Map(
    (await secretsOf.all(db, accountSids)).map((a) => [
      a.sid,
      {
        current: a.webhook_secret,
        previous: a.previous_webhook_secret ?? null,
        previousExpires: a.previous_webhook_secret_expires ?? null,
      },
    ]),
  );
}

/** Replaces the account's secret by `next`, keeping the current one as the previous until `expires`. */
export async function rotateStoredWebhookSecret(
  db: Conn,
  accountSid: string,
  expected: string,
  next: { current: string; previous: string; expires: string; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({
      webhook_secret: next.current,
      previous_webhook_secret: next.previous,
      previous_webhook_secret_expires: next.expires,
      date_updated: next.now,
    })
    .where('sid', '=', accountSid)
    .where('webhook_secret', '=', expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertAccount(db: Conn, account: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(account).execute();
}

export async function insertApiKey(db: Conn, key: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(key).execute();
}

export async function accountExists(db: Conn, accountSid: string): Promise<boolean> {
  return Boolean(await db.selectFrom('accounts').select('sid').where('sid', '=', accountSid).executeTakeFirst());
}

/** Whether any account exists at all. */
export async function anyAccount(db: Conn): Promise<boolean> {
  return Boolean(await db.selectFrom('accounts').select('sid').limit(1).executeTakeFirst());
}

export interface LiveKey {
  key_sid: string;
  account: Account;
}

export type KeySummary = Pick<ApiKeyRow, 'sid' | 'prefix' | 'date_created'>;

/** The live key with this hash, with its account. */
export async function liveKeyByHash(db: Conn, keyHash: string): Promise<LiveKey | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.sid', 'api_keys.account_sid')
    .select(['api_keys.sid as key_sid', 'accounts.sid', 'accounts.name'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.date_revoked', 'is', null)
    .executeTakeFirst();
  return row && { key_sid: row.key_sid, account: { sid: row.sid, name: row.name } };
}

/** The account's live keys, newest first. */
export function liveKeysOf(db: Conn, accountSid: string): Promise<KeySummary[]> {
  return db
    .selectFrom('api_keys')
    .select(['sid', 'prefix', 'date_created'])
    .where('account_sid', '=', accountSid)
    .where('date_revoked', 'is', null)
    .orderBy('date_created', 'desc')
    .orderBy('sid', 'desc')
    .execute();
}

/** Revokes the account's live key with this sid; true when one was. */
export async function revokeAccountKey(db: Conn, accountSid: string, keySid: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ date_revoked: now })
    .where('sid', '=', keySid)
    .where('account_sid', '=', accountSid)
    .where('date_revoked', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes the live key with this sid (`by` 'sid') or hash (`by` 'key_hash'); true when one was. */
export async function revokeApiKey(db: Conn, by: 'sid' | 'key_hash', value: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ date_revoked: now })
    .where(by, '=', value)
    .where('date_revoked', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The key with this hash, live or revoked. */
export function apiKeyByHash(db: Conn, keyHash: string): Promise<Pick<ApiKeyRow, 'date_revoked'> | undefined> {
  return db.selectFrom('api_keys').select('date_revoked').where('key_hash', '=', keyHash).executeTakeFirst();
}

/** Every account with how many live keys it has, oldest first. */
export function listAccounts(db: Conn) {
  return db
    .selectFrom('accounts')
    .leftJoin('api_keys', (j) =>
      j.onRef('api_keys.account_sid', '=', 'accounts.sid').on('api_keys.date_revoked', 'is', null),
    )
    .select(({ fn }) => [
      'accounts.sid',
      'accounts.name',
      'accounts.date_created',
      fn.count<number>('api_keys.sid').as('active_keys'),
    ])
    .groupBy(['accounts.sid', 'accounts.name', 'accounts.date_created'])
    .orderBy('accounts.date_created')
    .execute();
}

/** The account with its settings row (absent settings read as null). */
export function accountWithSettings(db: Conn, accountSid: string) {
  return db
    .selectFrom('accounts')
    .leftJoin('account_settings', 'account_settings.account_sid', 'accounts.sid')
    .select([
      'accounts.sid',
      'accounts.name',
      'accounts.date_created',
      'accounts.date_updated',
      'account_settings.verify_callback_url',
    ])
    .select('account_settings.date_updated as settings_updated')
    .where('accounts.sid', '=', accountSid)
    .executeTakeFirst();
}

export async function setVerifyCallbackUrl(
  db: Conn,
  accountSid: string,
  url: string | null,
  now: string,
): Promise<void> {
  await db
    .insertInto('account_settings')
    .values({ account_sid: accountSid, verify_callback_url: url, date_updated: now })
    .onConflict((oc) => oc.column('account_sid').doUpdateSet({ verify_callback_url: url, date_updated: now }))
    .execute();
}

export function verifyCallbackUrl(db: Conn, accountSid: string): Promise<string | null> {
  return db
    .selectFrom('account_settings')
    .select('verify_callback_url')
    .where('account_sid', '=', accountSid)
    .executeTakeFirst()
    .then((row) => row?.verify_callback_url ?? null);
}

/** Stores a server setting unless it is set already (the first writer wins), and returns the stored value. */
export async function serverSettingOnce(db: Conn, name: string, candidate: string): Promise<string> {
  await db
    .insertInto('server_settings')
    .values({ name, value: candidate })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_settings').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

export async function serverSetting(db: Conn, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('server_settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/**
 * Sets a setting to `to` if it is still `from`, and says whether it was. On PostgreSQL the update locks the row
 * until the transaction ends: a second caller waits, then finds it changed.
 */
export async function replaceServerSetting(db: Conn, name: string, from: string, to: string): Promise<boolean> {
  const result = await db
    .updateTable('server_settings')
    .set({ value: to })
    .where('name', '=', name)
    .where('value', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteServerSetting(db: Conn, name: string): Promise<void> {
  await db.deleteFrom('server_settings').where('name', '=', name).execute();
}

/** Every account's stored webhook secret (sealed, or in clear before migration 009). */
export function storedWebhookSecrets(
  db: Conn,
): Promise<{ sid: string; webhook_secret: string; previous_webhook_secret?: string | null }[]> {
  return db.selectFrom('accounts').select(['sid', 'webhook_secret', 'previous_webhook_secret']).execute();
}

export async function setStoredWebhookSecret(
  db: Conn,
  accountSid: string,
  stored: string,
  column: 'webhook_secret' | 'previous_webhook_secret' = 'webhook_secret',
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ [column]: stored })
    .where('sid', '=', accountSid)
    .execute();
}
