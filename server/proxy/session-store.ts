// SQL of the sessions' side of proxy (the API, the pool, the expiry): sessions and participants as they are created,
// listed and closed. The statements the relays share are in store.ts.
import type { Db, Dialect, Tx } from '../store/db.js';
import type { IncomingNumberRow, ProxyParticipantRow, ProxySessionRow } from '../store/schema.js';
import { paginate, type Page, type PageRequest } from '../store/pagination.js';
import { prepared } from '../store/sqlite/prepared.js';
import { OPEN } from './store.js';

type Conn = Db | Tx['db'];

// No error on a conflict: on PostgreSQL an error would end the transaction the session is being created in. The
// partial unique indexes decide (proxy_sessions_open_name, proxy_participants_open_pair), whichever instance asks.
const insertSessionRow = prepared((db, row: ProxySessionRow) =>
  db
    .insertInto('proxy_sessions')
    .values(row)
    .onConflict((oc) => oc.doNothing()),
);
const insertParticipantRow = prepared((db, row: ProxyParticipantRow) =>
  db
    .insertInto('proxy_participants')
    .values(row)
    .onConflict((oc) => oc.doNothing()),
);
const selectPool = prepared((db, accountSid: string) =>
  db
    .selectFrom('incoming_numbers')
    .select(['phone_number', 'iso_country', 'capabilities'])
    .where('account_sid', '=', accountSid)
    .orderBy('phone_number'),
);
const selectVersion = prepared((db, accountSid: string) =>
  db.selectFrom('number_pool_versions').select('version').where('account_sid', '=', accountSid),
);
const selectOpenCount = prepared((db, accountSid: string) =>
  db.selectFrom('proxy_open_counts').select('open').where('account_sid', '=', accountSid),
);
const selectOwned = prepared((db, accountSid: string, sid: string) =>
  db.selectFrom('proxy_sessions').selectAll().where('sid', '=', sid).where('account_sid', '=', accountSid),
);
const endRow = prepared((db, sid: string, end: SessionEnd) =>
  db
    .updateTable('proxy_sessions')
    .set({
      status: end.status,
      closed_reason: end.closed_reason,
      date_ended: end.at,
      date_updated: end.at,
      date_expiry: null,
    })
    .where('sid', '=', sid)
    .where('date_ended', 'is', null)
    .returningAll(),
);
const expireRow = prepared((db, sid: string, at: string) =>
  db
    .updateTable('proxy_sessions')
    .set({ status: 'closed', closed_reason: 'ttl_expired', date_ended: at, date_updated: at, date_expiry: null })
    .where('sid', '=', sid)
    .where('date_ended', 'is', null)
    .where('date_expiry', '<=', at)
    .returningAll(),
);
const freeRows = prepared((db, sessionSid: string) =>
  db.updateTable('proxy_participants').set({ open: 0 }).where('session_sid', '=', sessionSid).returningAll(),
);
// Served by proxy_participants_open_pair (its leading column, over open pairs only).
export const usingQuery = (db: Db, proxyIdentifier: string) =>
  db
    .selectFrom('proxy_participants')
    .select('session_sid')
    .where('proxy_identifier', '=', proxyIdentifier)
    .where('open', '=', OPEN);
const selectUsing = prepared(usingQuery);

/** A number of the account's pool, as the pool chooses among them. */
export type PoolNumber = Pick<IncomingNumberRow, 'phone_number' | 'iso_country' | 'capabilities'>;

/** How a session ends: by the API (`closed`, `ended`) or because a proxy number went (`failed`, `number_released`). */
interface SessionEnd {
  status: 'closed' | 'failed';
  closed_reason: 'ended' | 'number_released';
  at: string;
}

/** Inserts the session; false when an open session of the account already has its unique_name. */
export async function insertSession(db: Conn, row: ProxySessionRow): Promise<boolean> {
  return (await insertSessionRow.run(db, row)) === 1;
}

/** Inserts the participant (open); false when its pair (identifier, proxy number) is taken by an open session. */
export async function insertParticipant(db: Conn, row: ProxyParticipantRow): Promise<boolean> {
  return (await insertParticipantRow.run(db, row)) === 1;
}

/** The numbers the account holds, the pool its sessions' proxy numbers come from. */
export function poolNumbers(db: Conn, accountSid: string): Promise<PoolNumber[]> {
  return selectPool.all(db, accountSid);
}

/** The version of the account's numbers (migration 026): it changes whenever the pool would read something else. */
export async function numbersVersion(db: Conn, accountSid: string): Promise<number> {
  return Number((await selectVersion.first(db, accountSid))?.version ?? 0);
}

/**
 * PostgreSQL: locks the account's count row (made if missing) until the transaction ends. Every change of a session's
 * end takes it before the session's row, as a creation takes it by its insert: one order of locks, so an end, an
 * expiry, a release and a creation of one account never wait for each other crosswise. SQLite: one writer anyway.
 */
export async function lockOpenCount(tx: Tx, dialect: Dialect, accountSid: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await tx.db
    .insertInto('proxy_open_counts')
    .values({ account_sid: accountSid, open: 0 })
    .onConflict((oc) => oc.column('account_sid').doUpdateSet((eb) => ({ open: eb.ref('proxy_open_counts.open') })))
    .execute();
}

/** How many sessions of the account have not ended (kept by triggers, migration 014_proxy_open_counts). */
export async function countOpenSessions(db: Conn, accountSid: string): Promise<number> {
  return Number((await selectOpenCount.first(db, accountSid))?.open ?? 0);
}

export function ownedSession(db: Conn, accountSid: string, sid: string): Promise<ProxySessionRow | undefined> {
  return selectOwned.first(db, accountSid, sid);
}

/** Ends the session if it has not ended yet; its new row, or undefined when it had (someone else ended it). */
export function endSession(db: Conn, sid: string, end: SessionEnd): Promise<ProxySessionRow | undefined> {
  return endRow.first(db, sid, end);
}

/**
 * Closes the session `ttl_expired` if it has not ended and its expiry is due at `at`; undefined otherwise (it ended,
 * or an interaction slid its expiry later, also when one commits while this waits for its row on PostgreSQL).
 */
export function expireSession(db: Conn, sid: string, at: string): Promise<ProxySessionRow | undefined> {
  return expireRow.first(db, sid, at);
}

/** Frees the session's pairs for other sessions; its participants, now closed. */
export function freeParticipants(db: Conn, sessionSid: string): Promise<ProxyParticipantRow[]> {
  return freeRows.all(db, sessionSid);
}

/** The open sessions with a participant talking to `proxyIdentifier`. */
export async function openSessionsUsing(db: Conn, proxyIdentifier: string): Promise<string[]> {
  const rows = await selectUsing.all(db, proxyIdentifier);
  return [...new Set(rows.map((r) => r.session_sid))];
}

export function listSessions(
  db: Conn,
  accountSid: string,
  status: ProxySessionRow['status'] | undefined,
  page: PageRequest,
): Promise<Page<ProxySessionRow>> {
  return paginate(sessionsWhere(db, accountSid, status), page);
}

/** The account's sessions (of `status`, when given), unordered. */
export function sessionsWhere(db: Conn, accountSid: string, status: ProxySessionRow['status'] | undefined) {
  let q = db.selectFrom('proxy_sessions').selectAll().where('account_sid', '=', accountSid);
  if (status) q = q.where('status', '=', status);
  return q;
}

/** The participants of these sessions, by session. */
export async function participantsBySession(
  db: Conn,
  sessionSids: string[],
): Promise<Map<string, ProxyParticipantRow[]>> {
  const bySession = new Map<string, ProxyParticipantRow[]>(sessionSids.map((sid) => [sid, []]));
  if (sessionSids.length === 0) return bySession;
  const rows = await db
    .selectFrom('proxy_participants')
    .selectAll()
    .where('session_sid', 'in', sessionSids)
    .orderBy('position')
    .execute();
  for (const row of rows) bySession.get(row.session_sid)?.push(row);
  return bySession;
}

export function listInteractions(db: Conn, sessionSid: string, page: PageRequest) {
  return paginate(db.selectFrom('proxy_interactions').selectAll().where('session_sid', '=', sessionSid), page);
}
