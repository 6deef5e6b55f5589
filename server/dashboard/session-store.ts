// SQL of dashboard sessions (SQLite and PostgreSQL alike). Sessions are found by the digest of their token only.
import type { Db } from '../store/db.js';
import type { DashboardSessionRow } from '../store/schema.js';

export async function insertSession(db: Db, row: DashboardSessionRow): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

/** The session with this token digest, seen at `since` or later, whose key is still live; with its account's name. */
export function liveSession(db: Db, tokenHash: string, since: string) {
  return db
    .selectFrom('dashboard_sessions')
    .innerJoin('api_keys', 'api_keys.sid', 'dashboard_sessions.key_sid')
    .innerJoin('accounts', 'accounts.sid', 'dashboard_sessions.account_sid')
    .select(['dashboard_sessions.account_sid', 'dashboard_sessions.key_sid', 'dashboard_sessions.flash'])
    .select('accounts.name as account_name')
    .where('dashboard_sessions.token_hash', '=', tokenHash)
    .where('dashboard_sessions.last_seen', '>=', since)
    .where('api_keys.date_revoked', 'is', null)
    .executeTakeFirst();
}

/** Marks the session seen now, and clears its notice once shown. */
export async function touchSession(db: Db, tokenHash: string, now: string, clearFlash: boolean): Promise<void> {
  const update = db.updateTable('dashboard_sessions').set({ last_seen: now });
  await (clearFlash ? update.set({ flash: null }) : update).where('token_hash', '=', tokenHash).execute();
}

export async function setFlash(db: Db, tokenHash: string, flash: string): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ flash }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Removes the sessions idle since before `before` (any account): they can never be resumed. */
export async function deleteIdleSessions(db: Db, before: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('last_seen', '<', before).execute();
}
