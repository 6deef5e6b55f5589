// The logs' list queries are answered by an index, order included, with the page's cursor in the index condition:
// no scan of the account's records, no sort, whatever the page. EXPLAIN on both engines (PostgreSQL with its scans
// and sorts priced out, since a test's tiny tables would otherwise be read whole, as they should be).
import { sql, type SelectQueryBuilder } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { keysetQuery, paginateBothWays } from '../../server/store/pagination.js';
import { messagesWhere } from '../../server/messages/store.js';
import { callsWhere } from '../../server/calls/store/calls.js';
import { verificationsWhere } from '../../server/verify/store.js';
import { sessionsWhere } from '../../server/proxy/session-store.js';

describe.each(ENGINES)('logs query plans (%s)', (engine) => {
  const t = useTestServer({ engine });

  /** A real page token: the cursor of a message of the test account. */
  async function token(): Promise<string> {
    const db = t.server.services.store.db;
    const now = new Date().toISOString();
    const row = (sid: string) => ({
      sid,
      account_sid: t.account.sid,
      from_number: '+14155550100',
      to_number: '+14155550101',
      body: 'x',
      media_url: '[]',
      num_media: 0,
      num_segments: 1,
      status: 'delivered' as const,
      direction: 'outbound-api' as const,
      channel: 'sms' as const,
      price: null,
      price_unit: 'USD',
      error_code: null,
      error_message: null,
      send_at: null,
      validity_period: 14_400,
      expires_at: now,
      status_callback: null,
      origin_sid: null,
      date_created: now,
      date_updated: now,
      date_sent: null,
    });
    await db
      .insertInto('messages')
      .values([row(`SM${'1'.repeat(32)}`), row(`SM${'2'.repeat(32)}`)])
      .execute();
    const page = await paginateBothWays(messagesWhere(db, t.account.sid, {}), { page_size: 1 });
    return page.next_page_token!;
  }

  async function plan(query: SelectQueryBuilder<any, any, any>): Promise<string> {
    const { store } = t.server.services;
    const compiled = query.compile();
    if (engine === 'sqlite') {
      const explained = { ...compiled, sql: `explain query plan ${compiled.sql}` };
      const rows = (await store.db.executeQuery(explained)).rows as { detail: string }[];
      return rows.map((r) => r.detail).join('\n');
    }
    return store.transaction(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx.db);
      await sql`set local enable_sort = off`.execute(tx.db);
      await sql`set local enable_bitmapscan = off`.execute(tx.db);
      const rows = (await tx.db.executeQuery({ ...compiled, sql: `explain ${compiled.sql}` })).rows;
      return rows.map((r: any) => r['QUERY PLAN'] as string).join('\n');
    });
  }

  it('walks each list and each single filter on an index, entered at the cursor, either way', async () => {
    const db = t.server.services.store.db;
    const account = t.account.sid;
    const cursor = await token();
    // Each list's index, and the equalities SQLite enters it with before the cursor.
    const lists: [string, string, SelectQueryBuilder<any, any, any>][] = [
      ['messages_account', 'account_sid=?', messagesWhere(db, account, {})],
      ['messages_status_account', 'status=? AND account_sid=?', messagesWhere(db, account, { status: 'failed' })],
      [
        'messages_account_to_number',
        'account_sid=? AND to_number=?',
        messagesWhere(db, account, { to: '+14155550101' }),
      ],
      // A sending number's messages are its account's: the account is checked on each row the index gives.
      ['messages_from', 'from_number=?', messagesWhere(db, account, { from: '+14155550100' })],
      ['calls_account', 'account_sid=?', callsWhere(db, account, {})],
      ['verifications_account', 'account_sid=?', verificationsWhere(db, account, {})],
      ['proxy_sessions_account', 'account_sid=?', sessionsWhere(db, account, undefined)],
    ];
    for (const [index, entry, query] of lists) {
      for (const direction of ['after', 'before'] as const) {
        const explained = await plan(keysetQuery(query, 51, cursor, direction));
        if (engine === 'sqlite') {
          expect(explained, `${index} ${direction}`).toMatch(
            new RegExp(
              `^SEARCH \\w+ USING INDEX ${index} \\(${entry.replaceAll('?', '\\?')} AND ` +
                `\\(date_created,sid\\)[<>]\\(\\?,\\?\\)\\)$`,
            ),
          );
        } else {
          expect(explained, `${index} ${direction}`).toContain(`Index Scan`);
          expect(explained, `${index} ${direction}`).toContain(` using ${index} on `);
          expect(explained, `${index} ${direction}`).toMatch(/Index Cond: .*ROW\(date_created, sid\) [<>] ROW/);
          expect(explained, `${index} ${direction}`).not.toMatch(/Seq Scan|Sort/);
        }
      }
    }
  });
});
