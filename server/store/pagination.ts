// Keyset pagination for every list: newest first by (date_created, sid), with an opaque page token.
// The token stays here, not in http/: it is the keyset cursor written out, which only this module makes and reads;
// the API just carries it (page_token in, next_page_token out), and a bad one is a catalogue error like any other.
import { sql, type SelectQueryBuilder } from 'kysely';
import { errors } from '../errors.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/**
 * The page size a list asked for, or the default. The request validator coerces a query string such as `1e400` to
 * Infinity and lets it pass `integer` and `maximum`, so the range is checked again here (SQL refuses LIMIT Infinity).
 */
export function pageSize(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(requested) || requested < 1 || requested > MAX_PAGE_SIZE) {
    throw errors.invalidField('page_size', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return requested;
}

interface Cursor {
  c: string; // date_created of the last item of the previous page
  s: string; // its sid
}

function encodePageToken(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** What encodePageToken writes: a date_created (ISO 8601, UTC) and a sid (two letters and 32 hex digits). */
const CURSOR_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const CURSOR_SID = /^[A-Z]{2}[0-9a-f]{32}$/;

function decodePageToken(token: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    // Only what this module writes: a forged cursor (a NUL, which PostgreSQL refuses in text) never reaches SQL.
    const { c, s } = (cursor ?? {}) as Partial<Record<keyof Cursor, unknown>>;
    if (typeof c === 'string' && typeof s === 'string' && CURSOR_DATE.test(c) && CURSOR_SID.test(s)) return { c, s };
  } catch {
    // fall through to the error below
  }
  throw errors.invalidField('page_token', 'is not a page token this API issued');
}

export interface PageRequest {
  page_size?: number;
  page_token?: string;
}

export interface Page<T> {
  data: T[];
  next_page_token: string | null;
}

/**
 * Runs `query` (rows with `date_created` and `sid`, already filtered to one account) for one page.
 * `table` qualifies the two columns when the query joins other tables.
 */
export async function paginate<DB, TB extends keyof DB, Row extends { date_created: string; sid: string }>(
  query: SelectQueryBuilder<DB, TB, Row>,
  page: PageRequest,
  table?: string,
): Promise<Page<Row>> {
  const size = pageSize(page.page_size);
  const col = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  let q = query;
  if (page.page_token) {
    const cursor = decodePageToken(page.page_token);
    q = q.where(
      sql<boolean>`(${col('date_created')} < ${cursor.c}
        or (${col('date_created')} = ${cursor.c} and ${col('sid')} < ${cursor.s}))`,
    );
  }
  const rows = await q
    .orderBy(col('date_created') as any, 'desc')
    .orderBy(col('sid') as any, 'desc')
    .limit(size + 1)
    .execute();
  const more = rows.length > size;
  const data = more ? rows.slice(0, size) : rows;
  const last = data[data.length - 1];
  return { data, next_page_token: more && last ? encodePageToken({ c: last.date_created, s: last.sid }) : null };
}

/** A page that can be left both ways (the dashboard's lists): the tokens of the pages after and before it. */
export interface TwoWayPage<T> extends Page<T> {
  previous_page_token: string | null;
}

/**
 * The query of one keyset page of `query` in walking order: after the token (older items, newest first) or before it
 * (newer items, oldest first), `limit` rows. The cursor is compared as a row value, so the index on (…,
 * date_created, sid) is entered at the cursor instead of walked from the top: page 50 costs what page 1 does.
 */
export function keysetQuery<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  limit: number,
  token: string | undefined,
  direction: 'after' | 'before',
): SelectQueryBuilder<DB, TB, Row> {
  const order = direction === 'after' ? 'desc' : 'asc';
  let q = query;
  if (token) {
    const cursor = decodePageToken(token);
    const key = sql`(date_created, sid)`;
    q = q.where(
      direction === 'after'
        ? sql<boolean>`${key} < (${cursor.c}, ${cursor.s})`
        : sql<boolean>`${key} > (${cursor.c}, ${cursor.s})`,
    );
  }
  return q
    .orderBy('date_created' as any, order)
    .orderBy('sid' as any, order)
    .limit(limit);
}

/**
 * One page of `query` (already filtered to one account), newest first, walked either way by keyset (keysetQuery):
 * after `page_token` (older items) or before `before` (newer items; at the newest end the first page is read
 * again, so it is full).
 */
export async function paginateBothWays<DB, TB extends keyof DB, Row extends { date_created: string; sid: string }>(
  query: SelectQueryBuilder<DB, TB, Row>,
  page: PageRequest & { before?: string },
): Promise<TwoWayPage<Row>> {
  const size = pageSize(page.page_size);
  const cursorOf = (row: Row) => encodePageToken({ c: row.date_created, s: row.sid });
  if (page.before) {
    const rows = await keysetQuery(query, size + 1, page.before, 'before').execute();
    if (rows.length > size) {
      const data = rows.slice(0, size).reverse();
      return { data, next_page_token: cursorOf(data[data.length - 1]), previous_page_token: cursorOf(data[0]) };
    }
    return paginateBothWays(query, { page_size: size });
  }
  const rows = await keysetQuery(query, size + 1, page.page_token, 'after').execute();
  const more = rows.length > size;
  const data = more ? rows.slice(0, size) : rows;
  const first = data[0];
  const last = data[data.length - 1];
  return {
    data,
    next_page_token: more && last ? cursorOf(last) : null,
    previous_page_token: page.page_token && first ? cursorOf(first) : null,
  };
}
