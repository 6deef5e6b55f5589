// The SQLite write-ahead log is copied back into the database file from a thread of its own, and starts over while
// the server goes on writing: the writing connection only closes each round, between two of its transactions.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/database.js';

const MB = 1 << 20;

describe('checkpoints of the SQLite log from their own thread', () => {
  const databases: ReturnType<typeof freshDatabase>[] = [];
  afterEach(async () => {
    for (const db of databases.splice(0)) await db.dispose();
  });

  it('restarts the log under steady writes long before the writing connection would, and keeps every row', async () => {
    const db = freshDatabase('sqlite');
    databases.push(db);
    const store = await db.open();
    const dir = db.dataDir;
    const logSize = () => fs.statSync(path.join(dir, 'telephony.sqlite-wal')).size;
    const value = 'x'.repeat(3000);
    let written = 0;
    const write = (rows: number) =>
      Promise.all(
        Array.from({ length: rows }, () => {
          const name = `row-${written++}`;
          return store.transaction((tx) => tx.db.insertInto('server_settings').values({ name, value }).execute());
        }),
      );

    // Past the 16 MB that starts a round (the writing connection's own checkpoint would wait for 40 MB).
    while (logSize() < 17 * MB) await write(100);
    // A busy server never stops writing: the thread's passive checkpoints always find new pages, and only the
    // writing connection's closing checkpoint, between two of its transactions, lets the log start over. About 4 MB
    // of log a second, not more: on a loaded machine (CI runs three files at once on two cores) the thread, short of
    // CPU, must still catch up before the log reaches the writing connection's own limit.
    const deadline = Date.now() + 10_000;
    while (logSize() >= 16 * MB && Date.now() < deadline) {
      await write(5);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(logSize()).toBeLessThan(16 * MB);
    expect(written * value.length).toBeLessThan(40 * MB);
    // The thread copied the bulk of the log (a 4 KB page per frame): the writing connection only the last pages.
    const last = store.checkpointer!.last!;
    expect(last.error).toBeUndefined();
    expect(last.copiedFrames).toBeGreaterThan(3500);

    const { count } = await store.db
      .selectFrom('server_settings')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('name', 'like', 'row-%')
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(written);
  });
});
