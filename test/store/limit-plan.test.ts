// SQLite is given `limit (? + 0)` for a bare `limit ?` (server/store/db.ts, plannedOnce): a statement it plans once
// instead of at every run. That it is no longer planned at every run is shown by `npm run bench -- instructions`
// (docs/performance.md); here, that the text is rewritten where it should be only, and that the statements it makes
// still take each run's own limit, on every path a statement takes (Kysely's driver, the reads outside transactions,
// a transaction's statements run on the file, a `sql` template).
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { plannedOnce, type Store } from '../../server/store/db.js';
import { prepared } from '../../server/store/sqlite/prepared.js';
import { freshDatabase } from '../support/database.js';

const firstNames = prepared((db, limit: number) =>
  db.selectFrom('server_settings').select('name').orderBy('name').limit(limit),
);

describe('plannedOnce', () => {
  it('writes a bare `limit ?` as `limit (? + 0)`, and nothing else', () => {
    expect(plannedOnce('select a from t order by a limit ?')).toBe('select a from t order by a limit (? + 0)');
    expect(plannedOnce('select a from t limit ? offset ?')).toBe('select a from t limit (? + 0) offset ?');
    expect(plannedOnce('update t set a = ? where id in (select id from t limit ?\n) returning *')).toBe(
      'update t set a = ? where id in (select id from t limit (? + 0)\n) returning *',
    );
    expect(plannedOnce('select a from t LIMIT ?')).toBe('select a from t limit (? + 0)');
    for (const unchanged of ['select a from t limit 5', 'select a from t limit (? + 0)', 'select limited from t'])
      expect(plannedOnce(unchanged)).toBe(unchanged);
  });
});

describe('a limit bound at each run (sqlite)', () => {
  let dispose: () => Promise<void>;
  let store: Store;
  afterEach(() => dispose());

  it('takes each run its own limit, through every path of the store', async () => {
    const database = freshDatabase('sqlite');
    dispose = () => database.dispose();
    store = await database.open();
    await store.transaction(async (tx) => {
      for (const name of ['a', 'b', 'c', 'd'])
        await tx.db.insertInto('server_settings').values({ name, value: name }).execute();
    });
    const names = (rows: { name: string }[]) => rows.map((row) => row.name);
    for (const limit of [1, 3, 2, 4, 1]) {
      const expected = ['a', 'b', 'c', 'd'].slice(0, limit);
      // Outside a transaction: the read-only connection.
      expect(names(await firstNames.all(store.db, limit))).toEqual(expected);
      // Built afresh by Kysely: its driver.
      const built = await store.db.selectFrom('server_settings').select('name').orderBy('name').limit(limit).execute();
      expect(names(built)).toEqual(expected);
      // Inside a transaction: run on the file directly, and a `sql` template through the driver.
      const inside = await store.transaction(async (tx) => ({
        prepared: await firstNames.all(tx.db, limit),
        template: (
          await sql<{ name: string }>`select name from server_settings order by name limit ${limit}`.execute(tx.db)
        ).rows,
      }));
      expect(names(inside.prepared)).toEqual(expected);
      expect(names(inside.template)).toEqual(expected);
    }
  });
});
