// Queries compiled once and reused: every call must behave exactly like the Kysely query built afresh.
import { afterEach, describe, expect, it } from 'vitest';
import { prepared } from '../../server/store/sqlite/prepared.js';
import type { Store } from '../../server/store/db.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

const insertSetting = prepared((db, row: { name: string; value: string }) =>
  db.insertInto('server_settings').values(row),
);
const settingsIn = prepared((db, names: string[]) =>
  db.selectFrom('server_settings').select(['name', 'value']).where('name', 'in', names).orderBy('name'),
);
const rename = prepared((db, name: string, change: { value?: string; name?: string }) =>
  db.updateTable('server_settings').set(change).where('name', '=', name).where('value', '!=', 'frozen').returningAll(),
);

describe.each(ENGINES)('prepared queries (%s)', (engine) => {
  let dispose: () => Promise<void>;
  let store: Store;
  afterEach(() => dispose());

  async function open() {
    const database = freshDatabase(engine);
    dispose = () => database.dispose();
    store = await database.open();
  }

  it('fill in scalars, rows, in-lists and changes of every shape, inside and outside transactions', async () => {
    await open();
    await store.transaction(async (tx) => {
      for (const [name, value] of [
        ['a', '1'],
        ['b', '2'],
        ['c', 'frozen'],
        ['d', '4'],
      ])
        await insertSetting.run(tx.db, { name, value });
    });
    expect(await settingsIn.all(store.db, ['a'])).toEqual([{ name: 'a', value: '1' }]);
    expect(await settingsIn.all(store.db, ['d', 'b', 'zz'])).toEqual([
      { name: 'b', value: '2' },
      { name: 'd', value: '4' },
    ]);
    expect(await rename.first(store.db, 'a', { value: '10' })).toEqual({ name: 'a', value: '10' });
    // Another set of columns is another compiled form; an undefined member is left out, as Kysely does.
    expect(await rename.first(store.db, 'b', { name: 'b2', value: undefined })).toEqual({ name: 'b2', value: '2' });
    // The query's own constants stay: a frozen row is not changed.
    expect(await rename.first(store.db, 'c', { value: 'thawed' })).toBeUndefined();
    expect(await store.transaction((tx) => rename.run(tx.db, 'd', { value: '40' }))).toBe(1);
    expect(await settingsIn.all(store.db, ['a', 'b2', 'c', 'd'])).toEqual([
      { name: 'a', value: '10' },
      { name: 'b2', value: '2' },
      { name: 'c', value: 'frozen' },
      { name: 'd', value: '40' },
    ]);
  });

  it('refuses a query that does not use an argument as a value', async () => {
    await open();
    const unused = prepared((db, _name: string) => db.selectFrom('server_settings').selectAll());
    await expect(unused.all(store.db, 'x')).rejects.toThrow(/argument 0 is not a value/);
  });
});
