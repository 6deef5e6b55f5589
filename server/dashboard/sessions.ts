// Dashboard sessions: an API key is exchanged for a random session token (the cookie), of which only the digest is
// stored. Every request resumes the session from the database, so every instance agrees at once that it ended
// (signed out, idle past DASHBOARD_IDLE_MINUTES, or its key revoked).
import { createHash, createHmac } from 'node:crypto';
import type { AccountService, Account } from '../accounts/service.js';
import type { Store } from '../store/db.js';
import { newSecret } from '../ids.js';
import { nowIso } from '../clock.js';
import * as sessions from './session-store.js';

export interface DashboardSession {
  account: Account;
  /** The API key signed in with. */
  keySid: string;
  /** The digest of the session token: the session's id in the database. */
  tokenHash: string;
  /** The hidden field every state-changing form carries (derived from the session, so nothing more is stored). */
  csrf: string;
  /** A notice left by the previous request (e.g. after a redirect), shown once. */
  flash: string | null;
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class DashboardSessions {
  constructor(
    private readonly store: Store,
    private readonly accounts: AccountService,
    private readonly idleMinutes: number,
    /** The server secret: keys the CSRF tokens. */
    private readonly secretKey: string,
  ) {}

  /** Signs in with an API key: the new session's token, or null when the key is unknown or revoked. */
  async open(apiKey: string): Promise<string | null> {
    const key = await this.accounts.findKey(apiKey);
    if (!key) return null;
    const token = newSecret('ds');
    const now = nowIso(this.store.clock);
    await sessions.deleteIdleSessions(this.store.db, this.idleSince());
    await sessions.insertSession(this.store.db, {
      token_hash: digest(token),
      account_sid: key.account.sid,
      key_sid: key.key_sid,
      flash: null,
      date_created: now,
      last_seen: now,
    });
    return token;
  }

  /** The live session of this token (and marks it seen), or null when there is none. */
  async resume(token: string): Promise<DashboardSession | null> {
    const tokenHash = digest(token);
    const row = await sessions.liveSession(this.store.db, tokenHash, this.idleSince());
    if (!row) return null;
    await sessions.touchSession(this.store.db, tokenHash, nowIso(this.store.clock), row.flash !== null);
    return {
      account: { sid: row.account_sid, name: row.account_name },
      keySid: row.key_sid,
      tokenHash,
      csrf: this.csrfOf(tokenHash),
      flash: row.flash,
    };
  }

  /** Leaves a notice for the session's next page. */
  async flash(session: DashboardSession, message: string): Promise<void> {
    await sessions.setFlash(this.store.db, session.tokenHash, message);
  }

  async close(tokenHash: string): Promise<void> {
    await sessions.deleteSession(this.store.db, tokenHash);
  }

  private csrfOf(tokenHash: string): string {
    return createHmac('sha256', this.secretKey).update(`dashboard-csrf:${tokenHash}`).digest('base64url');
  }

  private idleSince(): string {
    return new Date(this.store.clock.now() - this.idleMinutes * 60_000).toISOString();
  }
}
