// SQL of messages (SQLite and PostgreSQL alike). Status changes are conditional updates, so a transition
// happens once even when two workers race for it.
import type { Updateable } from 'kysely';
import type { Db, Dialect, Tx } from '../store/db.js';
import type { MessageRow, MessageStatus } from '../store/schema.js';
import { paginate, type Page, type PageRequest } from '../store/pagination.js';
import { prepared } from '../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

export interface MessageFilters {
  to?: string;
  from?: string;
  status?: MessageStatus;
  direction?: MessageRow['direction'];
  /** Inclusive. */
  createdAfter?: string;
  /** Exclusive. */
  createdBefore?: string;
}

type Change = Updateable<MessageRow> & { status: MessageStatus; date_updated: string };

// The statements of the message pipeline, compiled once (see store/sqlite/prepared.ts).
const insertRow = prepared((db, row: MessageRow) => db.insertInto('messages').values(row));
const selectOwned = prepared((db, accountSid: string, sid: string) =>
  db.selectFrom('messages').selectAll().where('sid', '=', sid).where('account_sid', '=', accountSid),
);
const selectBySid = prepared((db, sid: string) => db.selectFrom('messages').selectAll().where('sid', '=', sid));
const updateIn = prepared((db, sid: string, from: readonly MessageStatus[], set: Change) =>
  db.updateTable('messages').set(set).where('sid', '=', sid).where('status', 'in', from).returningAll(),
);
const updateScheduledIn = prepared(
  (db, sid: string, from: readonly MessageStatus[], set: Change, sendAtAfter: string) =>
    db
      .updateTable('messages')
      .set(set)
      .where('sid', '=', sid)
      .where('status', 'in', from)
      .where('send_at', '>', sendAtAfter)
      .returningAll(),
);

const selectQueuedCount = prepared((db, accountSid: string) =>
  db
    .selectFrom('message_queue_counts')
    .select((eb) => eb.fn.sum<number | string | null>('queued').as('queued'))
    .where('account_sid', '=', accountSid),
);

/** How many messages of the account are `queued`: the sum of the rows triggers on messages keep (migrations 011, and
 * 020 and 022 on PostgreSQL). */
async function queuedCount(db: Conn, accountSid: string): Promise<number> {
  return Number((await selectQueuedCount.first(db, accountSid))?.queued ?? 0);
}

const admitQueued = prepared((db, accountSid: string, quota: number) =>
  db.selectNoFrom((eb) => eb.fn<boolean>('message_queue_admit', [eb.val(accountSid), eb.val(quota)]).as('admitted')),
);

/**
 * Whether the account may queue one more message under `quota`, asked before the message's insert and exact under
 * concurrent sends. SQLite runs one transaction at a time: the count. PostgreSQL: migration 022's function, which
 * lets the account's sends run at once while the count is far from the quota and makes them take turns near it.
 */
export async function roomInQueue(db: Conn, dialect: Dialect, accountSid: string, quota: number): Promise<boolean> {
  if (dialect === 'sqlite') return (await queuedCount(db, accountSid)) < quota;
  return Boolean((await admitQueued.first(db, accountSid, quota))?.admitted);
}

export async function insertMessage(db: Conn, row: MessageRow): Promise<void> {
  await insertRow.run(db, row);
}

export function findMessage(db: Conn, accountSid: string, sid: string): Promise<MessageRow | undefined> {
  return selectOwned.first(db, accountSid, sid);
}

export function messageBySid(db: Conn, sid: string): Promise<MessageRow | undefined> {
  return selectBySid.first(db, sid);
}

/** Moves a message to a new status only if it is in one of `from`; returns the updated row, or undefined. */
export function transition(
  db: Conn,
  sid: string,
  from: readonly MessageStatus[],
  set: Change,
  extra?: { sendAtAfter?: string },
): Promise<MessageRow | undefined> {
  return extra?.sendAtAfter
    ? updateScheduledIn.first(db, sid, from, set, extra.sendAtAfter)
    : updateIn.first(db, sid, from, set);
}

export async function deleteMessage(
  db: Conn,
  accountSid: string,
  sid: string,
  statuses: readonly MessageStatus[],
): Promise<boolean> {
  const result = await db
    .deleteFrom('messages')
    .where('sid', '=', sid)
    .where('account_sid', '=', accountSid)
    .where('status', 'in', statuses)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export function listMessages(
  db: Db,
  accountSid: string,
  filters: MessageFilters,
  page: PageRequest,
): Promise<Page<MessageRow>> {
  return paginate(messagesWhere(db, accountSid, filters), page);
}

/** The account's messages that pass `filters`, unordered: each filter has an index that leads to it (016, 021). */
export function messagesWhere(db: Db, accountSid: string, filters: MessageFilters) {
  let query = db.selectFrom('messages').selectAll().where('account_sid', '=', accountSid);
  if (filters.to) query = query.where('to_number', '=', filters.to);
  if (filters.from) query = query.where('from_number', '=', filters.from);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.direction) query = query.where('direction', '=', filters.direction);
  if (filters.createdAfter) query = query.where('date_created', '>=', filters.createdAfter);
  if (filters.createdBefore) query = query.where('date_created', '<', filters.createdBefore);
  return query;
}
