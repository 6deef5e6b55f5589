// SQL of verifications and their sends (SQLite and PostgreSQL alike). Every status change is a conditional
// update from `pending`, so it happens once even when two requests or a request and the expiry job race.
import { sql, type Updateable } from 'kysely';
import type { Db, Dialect, Tx } from '../store/db.js';
import type { VerificationChannel, VerificationRow, VerificationStatus } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

export interface SendAttempt {
  time: string;
  channel: VerificationChannel;
}

export interface Window {
  count: number;
  /** The oldest send inside the window, or null when there is none. */
  oldest: string | null;
}

export function findVerification(db: Conn, accountSid: string, sid: string): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('sid', '=', sid)
    .where('account_sid', '=', accountSid)
    .executeTakeFirst();
}

export function verificationBySid(db: Conn, sid: string): Promise<VerificationRow | undefined> {
  return db.selectFrom('verifications').selectAll().where('sid', '=', sid).executeTakeFirst();
}

export interface VerificationFilters {
  to?: string;
  status?: VerificationStatus;
  /** Inclusive. */
  createdAfter?: string;
  /** Exclusive. */
  createdBefore?: string;
}

/** The account's verifications that pass `filters`, unordered (codes are only ever hashed or sealed in them). */
export function verificationsWhere(db: Conn, accountSid: string, filters: VerificationFilters) {
  let query = db.selectFrom('verifications').selectAll().where('account_sid', '=', accountSid);
  if (filters.to) query = query.where('to_number', '=', filters.to);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.createdAfter) query = query.where('date_created', '>=', filters.createdAfter);
  if (filters.createdBefore) query = query.where('date_created', '<', filters.createdBefore);
  return query;
}

/** The most recent verification of the account to `to`, whatever its status. */
export function latestToNumber(db: Conn, accountSid: string, to: string): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('account_sid', '=', accountSid)
    .where('to_number', '=', to)
    .orderBy('date_created', 'desc')
    .orderBy('sid', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * `status = 'pending'` written into the SQL: bound as a parameter, it could make the partial index
 * `verifications_one_pending` usable, and SQLite then plans the statement again at every run.
 */
const PENDING = sql<boolean>`status = 'pending'`;

// The queries of every send, built once (see prepared.ts).
const selectPending = prepared((db, accountSid: string, to: string) =>
  db
    .selectFrom('verifications')
    .selectAll()
    .where('account_sid', '=', accountSid)
    .where('to_number', '=', to)
    .where(PENDING),
);
const insertRow = prepared((db, row: VerificationRow) => db.insertInto('verifications').values(row));
const insertSend = prepared((db, row: NewSend) => db.insertInto('verification_sends').values(row));
const selectSends = prepared((db, verificationSid: string) =>
  db
    .selectFrom('verification_sends')
    .select(['date_sent', 'channel'])
    .where('verification_sid', '=', verificationSid)
    .orderBy('id'),
);
const windowOf = (db: Db, accountSid: string, since: string) =>
  db
    .selectFrom('verification_sends')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min<string>('date_sent').as('oldest')])
    .where('account_sid', '=', accountSid)
    .where('date_sent', '>', since);
const selectAccountWindow = prepared(windowOf);
/** The minute an ISO 8601 time falls in, as verification_send_minutes keys it ("2026-11-26T14:50"). */
const minuteOf = (iso: string) => iso.slice(0, 16);
const bumpMinute = prepared((db, accountSid: string, minute: string) =>
  db
    .insertInto('verification_send_minutes')
    .values({ account_sid: accountSid, minute, sends: 1 })
    .onConflict((oc) =>
      oc
        .columns(['account_sid', 'minute'])
        .doUpdateSet((eb) => ({ sends: eb('verification_send_minutes.sends', '+', 1) })),
    )
    .returning('sends'),
);
const deleteMinutesBefore = prepared((db, accountSid: string, minute: string) =>
  db.deleteFrom('verification_send_minutes').where('account_sid', '=', accountSid).where('minute', '<', minute),
);
const selectMinutesFrom = prepared((db, accountSid: string, minute: string) =>
  db
    .selectFrom('verification_send_minutes')
    .select((eb) => eb.fn.sum<number>('sends').as('sends'))
    .where('account_sid', '=', accountSid)
    .where('minute', '>=', minute),
);
const selectNumberWindow = prepared((db, accountSid: string, since: string, to: string) =>
  windowOf(db, accountSid, since).where('to_number', '=', to),
);

export function pendingToNumber(db: Conn, accountSid: string, to: string): Promise<VerificationRow | undefined> {
  return selectPending.first(db, accountSid, to);
}

export async function insertVerification(db: Conn, row: VerificationRow): Promise<void> {
  await insertRow.run(db, row);
}

interface NewSend {
  account_sid: string;
  verification_sid: string;
  to_number: string;
  channel: VerificationChannel;
  date_sent: string;
}

/**
 * Records a send, and counts it in its account's minute (sendsBoundSince). A minute's first send forgets the
 * account's minutes before `forgetBefore`, which no window reads any more.
 */
export async function recordSend(db: Conn, row: NewSend, forgetBefore: string) {
  await insertSend.run(db, row);
  const minute = await bumpMinute.first(db, row.account_sid, minuteOf(row.date_sent));
  if (Number(minute!.sends) === 1) await deleteMinutesBefore.run(db, row.account_sid, minuteOf(forgetBefore));
}

/** The verification of the latest voice send to `to` at or before `at` (what a verification call speaks). */
export async function voiceSendAt(db: Conn, accountSid: string, to: string, at: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('verification_sends')
    .select('verification_sid')
    .where('account_sid', '=', accountSid)
    .where('to_number', '=', to)
    .where('channel', '=', 'voice')
    .where('date_sent', '<=', at)
    // By time first: read backwards from `at` through the account's sends by time (an index), it stops at the first.
    .orderBy('date_sent', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.verification_sid;
}

export async function sendsOf(db: Conn, verificationSid: string): Promise<SendAttempt[]> {
  const rows = await selectSends.all(db, verificationSid);
  return rows.map((r) => ({ time: r.date_sent, channel: r.channel }));
}

/** Sends of the account since `since`, to one number when `to` is given. */
export async function sendsSince(db: Conn, accountSid: string, since: string, to?: string): Promise<Window> {
  const row = to
    ? await selectNumberWindow.first(db, accountSid, since, to)
    : await selectAccountWindow.first(db, accountSid, since);
  return { count: Number(row!.count), oldest: row!.oldest ?? null };
}

/**
 * At least the account's sends since `since` (sendsSince's count), from its counts per minute: the sends of the
 * minute `since` falls in and of every minute after it. A few rows, where the exact count walks every send.
 */
export async function sendsBoundSince(db: Conn, accountSid: string, since: string): Promise<number> {
  const row = await selectMinutesFrom.first(db, accountSid, minuteOf(since));
  // PostgreSQL answers a sum as a string, and both engines answer null for no rows.
  return Number(row?.sends ?? 0);
}

/** Moves a pending verification to `set.status`; returns the updated row, or undefined when it was not pending. */
export function endPending(
  db: Conn,
  sid: string,
  set: Updateable<VerificationRow> & { status: VerificationStatus; date_updated: string },
) {
  // The sealed code exists only to repeat it while pending: it goes in the same change.
  return db
    .updateTable('verifications')
    .set({ ...set, code_sealed: null })
    .where('sid', '=', sid)
    .where(PENDING)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Records a re-send of a pending verification on `channel`; undefined when it is no longer pending (a check or a
 * cancel, which do not take the account's send lock, may end it after the sender read it).
 */
export function resendPending(
  db: Conn,
  sid: string,
  channel: VerificationChannel,
  now: string,
): Promise<VerificationRow | undefined> {
  return db
    .updateTable('verifications')
    .set({ channel, date_updated: now })
    .where('sid', '=', sid)
    .where(PENDING)
    .returningAll()
    .executeTakeFirst();
}

/** Counts one wrong code against a pending verification; returns the updated row, or undefined when not pending. */
export function countWrongCode(db: Conn, sid: string, now: string) {
  return db
    .updateTable('verifications')
    .set((eb) => ({ check_attempts: eb('check_attempts', '+', 1), date_updated: now }))
    .where('sid', '=', sid)
    .where(PENDING)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Serializes sends of one account on PostgreSQL until the transaction ends, so the rate limits count exactly
 * under concurrency. SQLite runs one write transaction at a time already.
 */
export async function lockAccountSends(tx: Tx, dialect: Dialect, accountSid: string): Promise<void> {
  if (dialect === 'postgres')
    await sql`select pg_advisory_xact_lock(hashtext(${'verify:' + accountSid}))`.execute(tx.db);
}
