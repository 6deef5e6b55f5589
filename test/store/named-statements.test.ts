// PostgreSQL: statements marked by nameStatement run as named prepared statements of their connection, parsed once
// there; others stay unnamed.
import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { nameStatement } from '../../server/store/named-statements.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

describe.runIf(ENGINES.includes('postgres'))('named prepared statements (postgres)', () => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  it('runs a marked statement as a named prepared statement of its connection, an unmarked one unnamed', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    const marked = 'select $1::integer + 1 as n /* named-statements test */';
    const unmarked = 'select $1::integer + 2 as n /* named-statements test */';
    nameStatement(marked);
    // One transaction: one connection, whose prepared statements pg_prepared_statements lists.
    const prepared = await store.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) {
        expect((await tx.db.executeQuery<{ n: number }>(CompiledQuery.raw(marked, [i]))).rows[0].n).toBe(i + 1);
        expect((await tx.db.executeQuery<{ n: number }>(CompiledQuery.raw(unmarked, [i]))).rows[0].n).toBe(i + 2);
      }
      const { rows } = await sql<{ statement: string }>`
        select statement from pg_prepared_statements where statement like '%named-statements test%'`.execute(tx.db);
      return rows.map((row) => row.statement);
    });
    expect(prepared).toEqual([marked]);
  });

  it('runs a named statement that reads a table with * again after a column was added to the table', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    const text = 'select * from named_statements_table where a = $1 /* named-statements test */';
    nameStatement(text);
    // One connection throughout (no transaction): the statement is prepared on it, then goes stale there.
    const rows = await store.db.connection().execute(async (conn) => {
      await sql`create table named_statements_table (a integer)`.execute(conn);
      await sql`insert into named_statements_table values (1)`.execute(conn);
      const before = (await conn.executeQuery(CompiledQuery.raw(text, [1]))).rows;
      await sql`alter table named_statements_table add column b integer not null default 2`.execute(conn);
      // PostgreSQL refuses the prepared one now ("cached plan must not change result type"): sent unnamed.
      const after = (await conn.executeQuery(CompiledQuery.raw(text, [1]))).rows;
      const again = (await conn.executeQuery(CompiledQuery.raw(text, [1]))).rows;
      return { before, after, again };
    });
    expect(rows).toEqual({ before: [{ a: 1 }], after: [{ a: 1, b: 2 }], again: [{ a: 1, b: 2 }] });
  });

  it('parses each result by its own columns when statements of one connection share column names', async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    // One connection: the shapes it keeps are told apart by the columns' types and names, and a row's object is its
    // own (a change to one row is not in the next).
    const answers = await store.db.connection().execute(async (conn) => {
      const run = (text: string, values: unknown[] = []) => conn.executeQuery(CompiledQuery.raw(text, values));
      const counted = await run('select count(*) as a, 7::integer as b from generate_series(1, $1::integer)', [3]);
      (counted.rows[0] as Record<string, unknown>).a = 'changed';
      return {
        counted: counted.rows,
        again: (await run('select count(*) as a, 7::integer as b from generate_series(1, $1::integer)', [2])).rows,
        text: (await run("select 'x' || $1::text as a, null::integer as b", ['y'])).rows,
        renamed: (await run('select 1::integer as c, 2::integer as b')).rows,
        dated: (await run("select '2026-11-27'::date as a, true as b")).rows,
        simple: (await run('select 1::bigint as a')).rows,
      };
    });
    expect(answers).toEqual({
      counted: [{ a: 'changed', b: 7 }],
      // bigint as a number (db.ts), not the string node-postgres gives by default.
      again: [{ a: 2, b: 7 }],
      text: [{ a: 'xy', b: null }],
      renamed: [{ c: 1, b: 2 }],
      dated: [{ a: new Date(2026, 10, 27), b: true }],
      simple: [{ a: 1 }],
    });
  });

  it("answers a statement's error with PostgreSQL's own, and the connection serves the next", async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    const text = 'select 1 / $1::integer as n /* named-statements test */';
    nameStatement(text);
    // One connection throughout: the error's, then the next statement's.
    const { error, next } = await store.db.connection().execute(async (conn) => {
      const run = (value: number) => conn.executeQuery<{ n: number }>(CompiledQuery.raw(text, [value]));
      const error = await run(0).catch((err: Error & { code?: string }) => err);
      return { error, next: (await run(1)).rows };
    });
    expect(error).toMatchObject({ code: '22012', message: 'division by zero' });
    expect(next).toEqual([{ n: 1 }]);
  });
});
