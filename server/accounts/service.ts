// Accounts and their API keys: creation, lookup by key, revocation, and the default account at start.
import { createHash } from 'node:crypto';
import type { Store } from '../store/db.js';
import { errors } from '../errors.js';
import type { AccountRow } from '../store/schema.js';
import { newSid } from '../ids.js';
import { nowIso } from '../clock.js';
import { apiKeyPrefix, hashApiKey, newApiKey, newWebhookSecret } from './keys.js';
import * as accounts from './store.js';
import type { WebhookSecretBox } from './webhook-secrets.js';
import type { Account } from './store.js';

export type { Account } from './store.js';

export interface CreatedKey {
  key_sid: string;
  account_sid: string;
  api_key: string;
}

/** How long a rotated webhook secret still signs beside the new one (Standard Webhooks' overlap). */
const PREVIOUS_SECRET_VALID_MS = 24 * 60 * 60 * 1000;

export interface WebhookSecretState {
  webhook_secret: string;
  /** Until when the secret before the last rotation still signs; null when none does. */
  previous_secret_expires_at: string | null;
}

/** Keys remembered at once, at most: past it the oldest go first. */
const KEY_CACHE_SIZE = 10_000;

export class AccountService {
  /**
   * The account of each key checked lately, by key hash, with when it must be read again: on SQLite a read of its
   * own costs more than the rest of the key check (the read connection starts over after every write), and every
   * request makes one. Concurrent checks of one key share a read. Only keys found are kept, so a new key works at
   * once; a revocation made here clears them all, one made elsewhere counts after at most `keyCacheMs`.
   */
  private readonly keyCache = new Map<string, { account: Promise<Account | undefined>; until: number }>();

  /** `keyCacheMs`: how long a key's account answers for it from memory (0: read it on every request). */
  constructor(
    private readonly store: Store,
    /** Seals a new account's webhook signing secret before it is stored. */
    private readonly webhookSecrets: WebhookSecretBox,
    private readonly keyCacheMs = 0,
  ) {}

  /** Creates an account with one API key; the key and the webhook secret are returned in clear, never stored so. */
  async createAccount(name: string, apiKey: string = newApiKey()): Promise<{ account: AccountRow; key: CreatedKey }> {
    const at = this.store.clock.now();
    const now = new Date(at).toISOString();
    const sid = newSid('account', at);
    const account: AccountRow = { sid, name, webhook_secret: newWebhookSecret(), date_created: now, date_updated: now };
    const keySid = newSid('apiKey', at);
    await this.store.transaction(async ({ db }) => {
      await accounts.insertAccount(db, {
        ...account,
        webhook_secret: this.webhookSecrets.seal(sid, account.webhook_secret),
      });
      await accounts.insertApiKey(db, {
        sid: keySid,
        account_sid: account.sid,
        key_hash: hashApiKey(apiKey),
        prefix: apiKeyPrefix(apiKey),
        date_created: now,
        date_revoked: null,
      });
    });
    return { account, key: { key_sid: keySid, account_sid: account.sid, api_key: apiKey } };
  }

  async createKey(accountSid: string): Promise<CreatedKey | null> {
    if (!(await accounts.accountExists(this.store.db, accountSid))) return null;
    const apiKey = newApiKey();
    const at = this.store.clock.now();
    const keySid = newSid('apiKey', at);
    await accounts.insertApiKey(this.store.db, {
      sid: keySid,
      account_sid: accountSid,
      key_hash: hashApiKey(apiKey),
      prefix: apiKeyPrefix(apiKey),
      date_created: new Date(at).toISOString(),
      date_revoked: null,
    });
    return { key_sid: keySid, account_sid: accountSid, api_key: apiKey };
  }

  /** Revokes a key by its sid (SK...) or by its value. Returns false when no live key matched. */
  async revokeKey(keySidOrValue: string): Promise<boolean> {
    this.keyCache.clear();
    const column = keySidOrValue.startsWith('SK') && keySidOrValue.length === 34 ? 'sid' : 'key_hash';
    const value = column === 'sid' ? keySidOrValue : hashApiKey(keySidOrValue);
    const revoked = await accounts.revokeApiKey(this.store.db, column, value, nowIso(this.store.clock));
    // Again once done: a check that read the key before the update may have cached it meanwhile.
    this.keyCache.clear();
    return revoked;
  }

  /** The live key with this value and its account (for a dashboard sign-in, which remembers the key's sid). */
  findKey(apiKey: string): Promise<accounts.LiveKey | undefined> {
    return accounts.liveKeyByHash(this.store.db, hashApiKey(apiKey));
  }

  /** The account's live keys, newest first: sid, prefix and creation date (the key itself is never stored). */
  listKeys(accountSid: string): Promise<accounts.KeySummary[]> {
    return accounts.liveKeysOf(this.store.db, accountSid);
  }

  /** Revokes a live key of this account by its sid; false when it has none such (another account's is none). */
  async revokeAccountKey(accountSid: string, keySid: string): Promise<boolean> {
    this.keyCache.clear();
    const revoked = await accounts.revokeAccountKey(this.store.db, accountSid, keySid, nowIso(this.store.clock));
    this.keyCache.clear();
    return revoked;
  }

  async findByApiKey(apiKey: string): Promise<Account | undefined> {
    const hash = hashApiKey(apiKey);
    if (this.keyCacheMs === 0) return accounts.accountByApiKeyHash(this.store.db, hash);
    const now = performance.now();
    const cached = this.keyCache.get(hash);
    if (cached && cached.until > now) return cached.account;
    if (cached) this.keyCache.delete(hash);
    else if (this.keyCache.size >= KEY_CACHE_SIZE) this.keyCache.delete(this.keyCache.keys().next().value!);
    const entry = { account: accounts.accountByApiKeyHash(this.store.db, hash), until: now + this.keyCacheMs };
    this.keyCache.set(hash, entry);
    // An unknown key (or a failed read) is not remembered: a key created a moment later must work at once.
    const forget = () => {
      if (this.keyCache.get(hash) === entry) this.keyCache.delete(hash);
    };
    entry.account.then((account) => {
      if (!account) forget();
    }, forget);
    return entry.account;
  }

  /** The accounts `sidOrName` names: the one with that sid, else every account of that name. */
  async accountsNamed(sidOrName: string): Promise<string[]> {
    const all = await accounts.listAccounts(this.store.db);
    if (all.some((a) => a.sid === sidOrName)) return [sidOrName];
    return all.filter((a) => a.name === sidOrName).map((a) => a.sid);
  }

  /** The account's webhook signing secret in clear (for the dashboard's reveal), and the previous one's expiry. */
  async webhookSecret(accountSid: string): Promise<WebhookSecretState> {
    const stored = (await accounts.webhookSecrets(this.store.db, [accountSid])).get(accountSid);
    if (!stored) throw errors.noSuchAccount();
    const expires = stored.previousExpires;
    const live = stored.previous !== null && expires !== null && expires > nowIso(this.store.clock);
    return {
      webhook_secret: this.webhookSecrets.open(accountSid, stored.current),
      previous_secret_expires_at: live ? expires : null,
    };
  }

  /**
   * Replaces the account's webhook secret with a new one; the current one becomes the previous, still signing for
   * 24 hours (see WebhookService). Two rotations at once: the second reads again and rotates after the first.
   * With `ifCurrent` (the fingerprint of the secret the caller saw, see secretFingerprint), only that secret is
   * rotated: null when it was rotated already (a form posted twice must not drop the secret receivers still use).
   */
  async rotateWebhookSecret(
    accountSid: string,
    { ifCurrent }: { ifCurrent?: string } = {},
  ): Promise<(WebhookSecretState & { previous_secret_expires_at: string }) | null> {
    for (;;) {
      const stored = (await accounts.webhookSecrets(this.store.db, [accountSid])).get(accountSid);
      if (!stored) throw errors.noSuchAccount();
      if (ifCurrent !== undefined) {
        const current = this.webhookSecrets.open(accountSid, stored.current);
        if (secretFingerprint(current) !== ifCurrent) return null;
      }
      const secret = newWebhookSecret();
      const at = this.store.clock.now();
      const expires = new Date(at + PREVIOUS_SECRET_VALID_MS).toISOString();
      const next = {
        current: this.webhookSecrets.seal(accountSid, secret),
        previous: stored.current,
        expires,
        now: new Date(at).toISOString(),
      };
      if (await accounts.rotateStoredWebhookSecret(this.store.db, accountSid, stored.current, next)) {
        return { webhook_secret: secret, previous_secret_expires_at: expires };
      }
    }
  }

  async listAccounts() {
    return accounts.listAccounts(this.store.db);
  }

  /**
   * At start: with a configured key, make sure an account holds it; with none and no account yet,
   * create the first account. Returns the new key and webhook secret only when they were made, so they can be
   * printed once.
   */
  async ensureDefaultAccount(configuredKey: string | null): Promise<(CreatedKey & { webhook_secret: string }) | null> {
    if (configuredKey) {
      const existing = await accounts.apiKeyByHash(this.store.db, hashApiKey(configuredKey));
      if (existing?.date_revoked) throw new Error('TELEPHONY_API_KEY was revoked; set another key or unset it');
      if (existing) return null;
      const { account, key } = await this.createAccount('default', configuredKey);
      return { ...key, api_key: '(from TELEPHONY_API_KEY)', webhook_secret: account.webhook_secret };
    }
    if (await accounts.anyAccount(this.store.db)) return null;
    const { account, key } = await this.createAccount('default');
    return { ...key, webhook_secret: account.webhook_secret };
  }
}

/** A short digest that tells two secrets apart without showing either (a form's "the secret I am rotating"). */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}
