// Migration 026's versions of each account's numbers (what the proxy pool is kept at): accounts holding numbers when
// it runs get a version of their own, and on PostgreSQL its trigger finds its table whatever the search path of the
// session that changes the numbers.
import pg from 'pg';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/db.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { holdNumber } from '../support/numbers.js';

const BEFORE_026 = '025_number_holdings_version';

const versions = async (store: Store) =>
  (
    await sql<{ account_sid: string; version: number }>`
      select account_sid, version from number_pool_versions order by account_sid`.execute(store.db)
  ).rows.map((r) => ({ account_sid: r.account_sid, version: Number(r.version) }));

describe.each(ENGINES)('versions of the accounts’ numbers (%s)', (engine) => {
  const disposals: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(disposals.splice(0).map((dispose) => dispose()));
  });

  it('gives each account holding numbers before 026 a version of its own, and none to the others', async () => {
    const db = freshDatabase(engine);
    disposals.push(() => db.dispose());
    const before = await db.open({ migrateTo: BEFORE_026 });
    await holdNumber(before, 'ACholderone', '+14155550101');
    await holdNumber(before, 'ACholderone', '+14155550102');
    await holdNumber(before, 'ACholdertwo', '+14155550103');
    await before.close();

    const after = await db.open();
    const rows = await versions(after);
    expect(rows.map((r) => r.account_sid)).toEqual(['ACholderone', 'ACholdertwo']);
    expect(rows.every((r) => r.version !== 0)).toBe(true);
  });

  it.runIf(engine === 'postgres')(
    'moves the versions (the pool’s, the search’s) when a session on another search path releases a number',
    async () => {
      const db = freshDatabase('postgres');
      disposals.push(() => db.dispose());
      const store = await db.open();
      await holdNumber(store, 'ACholderone', '+14155550101');
      const [held] = await versions(store);
      const holdings = async () =>
        Number((await sql<{ version: number }>`select version from number_holdings`.execute(store.db)).rows[0].version);
      const heldHoldings = await holdings();
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(store.db)).rows[0].s;

      const operator = new pg.Client({
        connectionString: process.env.TEST_DATABASE_URL,
        options: '-c search_path=public',
      });
      await operator.connect();
      try {
        await operator.query(`delete from "${schema}".incoming_numbers where account_sid = 'ACholderone'`);
      } finally {
        await operator.end();
      }
      const [released] = await versions(store);
      expect(released.account_sid).toBe('ACholderone');
      expect(released.version).not.toBe(held.version);
      // The number search's version (migration 025) too.
      expect(await holdings()).toBe(heldHoldings + 1);
    },
  );
});
