// SQL of the calls the API reads and creates. Calls placed for Verify (`purpose` `verification`) never pass here:
// they belong to the verification that placed them, not to the account's call log.
import type { Db, Dialect, Tx } from '../../store/db.js';
import type { CallRow, CallStatus } from '../../store/schema.js';
import { paginate, type Page, type PageRequest } from '../../store/pagination.js';
import { prepared } from '../../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

export interface CallFilters {
  to?: string;
  from?: string;
  status?: CallStatus;
  direction?: CallRow['direction'];
  /** Inclusive. */
  createdAfter?: string;
  /** Exclusive. */
  createdBefore?: string;
}

// The statements of POST and GET /v1/calls, compiled once (see store/sqlite/prepared.ts).
const insertRow = prepared((db, row: CallRow) => db.insertInto('calls').values(row));
const owned = (db: Db, accountSid: string, sid: string) =>
  db
    .selectFrom('calls')
    .selectAll()
    .where('sid', '=', sid)
    .where('account_sid', '=', accountSid)
    .where('purpose', '=', 'api');
const selectOwned = prepared(owned);
const selectOwnedLocked = prepared((db, accountSid: string, sid: string) => owned(db, accountSid, sid).forUpdate());

export async function insertCall(db: Conn, row: CallRow): Promise<void> {
  await insertRow.run(db, row);
}

/** A call of the account; another account's call is as unknown as one that does not exist. */
export function findCall(db: Conn, accountSid: string, sid: string): Promise<CallRow | undefined> {
  return selectOwned.first(db, accountSid, sid);
}

/**
 * `findCall` for a change of the call in `tx`: on PostgreSQL its row is locked to the end of the transaction, so that
 * changes of one call made at once take turns, each seeing what the one before did (two hang-ups: one ends the call,
 * the other finds it ended). SQLite runs one transaction at a time.
 */
export function findCallToChange(tx: Tx, dialect: Dialect, accountSid: string, sid: string) {
  return (dialect === 'postgres' ? selectOwnedLocked : selectOwned).first(tx.db, accountSid, sid);
}

export function listCalls(db: Db, accountSid: string, filters: CallFilters, page: PageRequest): Promise<Page<CallRow>> {
  return paginate(callsWhere(db, accountSid, filters), page);
}

/** The account's calls (of the API, not Verify's) that pass `filters`, unordered. */
export function callsWhere(db: Db, accountSid: string, filters: CallFilters) {
  let query = db.selectFrom('calls').selectAll().where('account_sid', '=', accountSid).where('purpose', '=', 'api');
  if (filters.to) query = query.where('to_number', '=', filters.to);
  if (filters.from) query = query.where('from_number', '=', filters.from);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.direction) query = query.where('direction', '=', filters.direction);
  if (filters.createdAfter) query = query.where('date_created', '>=', filters.createdAfter);
  if (filters.createdBefore) query = query.where('date_created', '<', filters.createdBefore);
  return query;
}
