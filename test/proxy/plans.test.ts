// The lookups of open participants run on the partial unique index of open pairs, not by reading every participant:
// every inbound message and call to a number asks for its route, and a released number for its sessions. The SQL must
// state `open = 1` itself: with a bound parameter, SQLite plans on the bound value and plans the statement again
// whenever it is bound anew, that is at every run (27 µs instead of 4 for the bare lookup, measured once), and scans
// every participant for any other value. On SQLite the plan is asked with every parameter null, so only the SQL's
// own text can pick the index. PostgreSQL with its sequential scans priced out (a test's tiny table would otherwise
// be read whole, as it should be).
import { sql, type SelectQueryBuilder } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { routeQuery } from '../../server/proxy/store.js';
import { usingQuery } from '../../server/proxy/session-store.js';

describe.each(ENGINES)('proxy query plans (%s)', (engine) => {
  const t = useTestServer({ engine });

  async function plan(query: SelectQueryBuilder<any, any, any>): Promise<string> {
    const { store } = t.server.services;
    const compiled = query.compile();
    if (engine === 'sqlite') {
      const explained = {
        ...compiled,
        sql: `explain query plan ${compiled.sql}`,
        parameters: compiled.parameters.map(() => null),
      };
      const rows = (await store.db.executeQuery(explained)).rows as { detail: string }[];
      return rows.map((r) => r.detail).join('\n');
    }
    return store.transaction(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx.db);
      await sql`set local enable_bitmapscan = off`.execute(tx.db);
      const rows = (await tx.db.executeQuery({ ...compiled, sql: `explain ${compiled.sql}` })).rows;
      return rows.map((r: any) => r['QUERY PLAN'] as string).join('\n');
    });
  }

  it("finds a participant's route and a number's open sessions on the open-pair index, whatever is bound", async () => {
    const db = t.server.services.store.db;
    const route = await plan(routeQuery(db, '+14155550100', '+14155550101', t.account.sid));
    const using = await plan(usingQuery(db, '+14155550100'));
    if (engine === 'sqlite') {
      expect(route).toMatch(
        /^SEARCH f USING INDEX proxy_participants_open_pair \(proxy_identifier=\? AND identifier=\?\)$/m,
      );
      expect(using).toMatch(
        /^SEARCH proxy_participants USING INDEX proxy_participants_open_pair \(proxy_identifier=\?\)$/m,
      );
      expect(`${route}\n${using}`).not.toMatch(/^SCAN/m);
    } else {
      expect(route).toMatch(/Index Scan using proxy_participants_open_pair on proxy_participants f/);
      expect(using).toMatch(/Index (Only )?Scan using proxy_participants_open_pair on proxy_participants/);
      expect(`${route}\n${using}`).not.toMatch(/Seq Scan/);
    }
  });
});
