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
});
