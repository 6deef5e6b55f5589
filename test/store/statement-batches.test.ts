// PostgreSQL: a transaction's `begin` goes in one write with its first statement, and a deferred write in one write
// with the statement after it (the commit at the latest); a deferred write that fails fails its transaction.
import net from 'node:net';
import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { deferStatement, nameStatement } from '../../server/store/named-statements.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

/** The writes to any socket of this process while `fn` runs. */
async function socketWrites<T>(fn: () => Promise<T>): Promise<{ writes: number; result: T }> {
  const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const original = { write: proto._write, writev: proto._writev };
  let writes = 0;
  proto._write = function (...args) {
    writes++;
    return original.write.apply(this, args);
  };
  proto._writev = function (...args) {
    writes++;
    return original.writev.apply(this, args);
  };
  try {
    const result = await fn();
    return { writes, result };
  } finally {
    proto._write = original.write;
    proto._writev = original.writev;
  }
}

describe.runIf(ENGINES.includes('postgres'))('statement batches (postgres)', () => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  it('sends begin with the first statement and a deferred insert with the next: 3 writes, 5 statements', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await sql`create table batches_t (a integer)`.execute(store.db);
    const insert = 'insert into batches_t (a) values ($1) /* statement-batches test */';
    deferStatement(insert);
    const { writes, result } = await socketWrites(() =>
      store.transaction(async (tx) => {
        const first = await sql<{ n: number }>`select count(*)::integer as n from batches_t`.execute(tx.db);
        await tx.db.executeQuery(CompiledQuery.raw(insert, [7]));
        // The deferred insert went before this read, in the same write: the read sees it.
        const after = await sql<{ a: number }>`select a from batches_t`.execute(tx.db);
        return { first: first.rows[0].n, after: after.rows.map((row) => row.a) };
      }),
    );
    expect(result).toEqual({ first: 0, after: [7] });
    // begin + select, insert + select, commit.
    expect(writes).toBe(3);
    const { rows } = await sql<{ a: number }>`select a from batches_t`.execute(store.db);
    expect(rows).toEqual([{ a: 7 }]);
  });

  it('sends nothing for a transaction that runs no statement', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await store.ping();
    const { writes } = await socketWrites(() => store.transaction(() => Promise.resolve()));
    expect(writes).toBe(0);
  });

  it('fails and rolls back a transaction whose deferred write, sent with its commit, failed', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await sql`create table batches_u (a integer primary key)`.execute(store.db);
    await sql`create table batches_v (a integer)`.execute(store.db);
    const insert = 'insert into batches_u (a) values ($1) /* statement-batches test */';
    deferStatement(insert);
    const run = store.transaction(async (tx) => {
      await sql`insert into batches_v (a) values (1)`.execute(tx.db);
      await tx.db.executeQuery(CompiledQuery.raw(insert, [1]));
      await tx.db.executeQuery(CompiledQuery.raw(insert, [1]));
    });
    await expect(run).rejects.toMatchObject({ code: '23505' });
    const { rows } = await sql<{ n: number }>`select count(*)::integer as n from batches_v`.execute(store.db);
    expect(rows[0].n).toBe(0);
    // The connection serves the next transaction.
    await store.transaction((tx) => sql`insert into batches_v (a) values (2)`.execute(tx.db));
    const again = await sql<{ n: number }>`select count(*)::integer as n from batches_v`.execute(store.db);
    expect(again.rows[0].n).toBe(1);
  });

  it("fails a statement sent with a failed deferred write with that write's error, not the abort", async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await sql`create table batches_w (a integer primary key)`.execute(store.db);
    await sql`insert into batches_w (a) values (1)`.execute(store.db);
    const insert = 'insert into batches_w (a) values ($1) /* statement-batches test, cause */';
    // Named, as the store's deferred writes are: its answer then settles a step after the unnamed read's.
    nameStatement(insert);
    deferStatement(insert);
    // Five times: which of the two answers settles first is a matter of timing.
    for (let i = 0; i < 5; i++) {
      const run = store.transaction(async (tx) => {
        await tx.db.executeQuery(CompiledQuery.raw(insert, [1]));
        await sql`select count(*) from batches_w`.execute(tx.db);
      });
      await expect(run).rejects.toMatchObject({ code: '23505' });
    }
  });

  it('drops the writes held since a savepoint rolled back to: the transaction commits the rest', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await sql`create table batches_x (a integer primary key)`.execute(store.db);
    await sql`insert into batches_x (a) values (1)`.execute(store.db);
    const insert = 'insert into batches_x (a) values ($1) /* statement-batches test, savepoint */';
    deferStatement(insert);
    await store.transaction(async (tx) => {
      await sql`insert into batches_x (a) values (2)`.execute(tx.db);
      await sql`savepoint s`.execute(tx.db);
      // Would fail (a duplicate key) if it were sent; the handler throws before its next statement.
      await tx.db.executeQuery(CompiledQuery.raw(insert, [1]));
      await sql`rollback to savepoint s`.execute(tx.db);
      await sql`release savepoint s`.execute(tx.db);
    });
    const { rows } = await sql<{ a: number }>`select a from batches_x order by a`.execute(store.db);
    expect(rows).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('fails the commit of a transaction whose deferred write failed, even if its caller caught it', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await sql`create table batches_y (a integer primary key)`.execute(store.db);
    await sql`insert into batches_y (a) values (1)`.execute(store.db);
    const insert = 'insert into batches_y (a) values ($1) /* statement-batches test, caught */';
    deferStatement(insert);
    const run = store.transaction(async (tx) => {
      await sql`insert into batches_y (a) values (2)`.execute(tx.db);
      await tx.db.executeQuery(CompiledQuery.raw(insert, [1]));
      await sql`select 1`.execute(tx.db).catch(() => undefined);
    });
    await expect(run).rejects.toThrow('the transaction was rolled back');
    const { rows } = await sql<{ a: number }>`select a from batches_y order by a`.execute(store.db);
    expect(rows).toEqual([{ a: 1 }]);
  });
});
