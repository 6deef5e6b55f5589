// SQL of messages (SQLite and PostgreSQL alike). Status changes are conditional updates, so a transition
// happens once even when two workers race for it.
import type { Updateable } from 'kysely';
import type { Db, Tx } from '../store/db.js';
import type { IncomingNumberRow, MessageRow, MessageStatus } from '../store/schema.js';
import { paginate, type Page, type PageRequest } from '../http/pagination.js';

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

export async function insertMessage(db: Conn, row: MessageRow): Promise<void> {
  await db.insertInto('messages').values(row).execute();
}

export function findMessage(db: Conn, accountSid: string, sid: string): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('sid', '=', sid).where('account_sid', '=', accountSid).executeTakeFirst();
}

export function messageBySid(db: Conn, sid: string): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('sid', '=', sid).executeTakeFirst();
}

/** Moves a message to a new status only if it is in one of `from`; returns the updated row, or undefined. */
export function transition(
  db: Conn,
  sid: string,
  from: readonly MessageStatus[],
  set: Updateable<MessageRow> & { status: MessageStatus; date_updated: string },
  extra?: { sendAtAfter?: string },
): Promise<MessageRow | undefined> {
  let query = db.updateTable('messages').set(set).where('sid', '=', sid).where('status', 'in', from);
  if (extra?.sendAtAfter) query = query.where('send_at', '>', extra.sendAtAfter);
  return query.returningAll().executeTakeFirst();
}

export async function deleteMessage(db: Conn, accountSid: string, sid: string, statuses: readonly MessageStatus[]): Promise<boolean> {
  const result = await db.deleteFrom('messages').where('sid', '=', sid).where('account_sid', '=', accountSid).where('status', 'in', statuses).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export function listMessages(db: Db, accountSid: string, filters: MessageFilters, page: PageRequest): Promise<Page<MessageRow>> {
  let query = db.selectFrom('messages').selectAll().where('account_sid', '=', accountSid);
  if (filters.to) query = query.where('to_number', '=', filters.to);
  if (filters.from) query = query.where('from_number', '=', filters.from);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.direction) query = query.where('direction', '=', filters.direction);
  if (filters.createdAfter) query = query.where('date_created', '>=', filters.createdAfter);
  if (filters.createdBefore) query = query.where('date_created', '<', filters.createdBefore);
  return paginate(query, page);
}

/** The platform record of a number: who holds it and where its inbound webhooks go. */
export function incomingNumber(db: Conn, phoneNumber: string): Promise<Pick<IncomingNumberRow, 'sid' | 'account_sid' | 'sms_url'> | undefined> {
  return db.selectFrom('incoming_numbers').select(['sid', 'account_sid', 'sms_url']).where('phone_number', '=', phoneNumber).executeTakeFirst();
}
