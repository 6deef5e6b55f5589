// PostgreSQL's introspection (what Kysely's Migrator asks before migrating) reads the server's own schema only: a
// start does not fail when another schema changes meanwhile, nor count another schema's tables as its own.
import pg from 'pg';
import { Kysely, sql } from 'kysely';
import { OwnSchemaPostgresDialect } from '../../server/store/own-schema.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

describe.runIf(ENGINES.includes('postgres'))('introspection of its own schema (postgres)', () => {
  const disposals: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(disposals.splice(0).map((dispose) => dispose()));
  });

  function database() {
    const db = freshDatabase('postgres');
    disposals.push(() => db.dispose());
    return db;
  }

  it("lists its schema's tables with their columns, and none of another schema's", async () => {
    const other = await database().open();
    await sql`create table only_elsewhere (id bigserial primary key, note text)`.execute(other.db);
    const store = await database().open();

    const tables = await store.db.introspection.getTables();
    const names = tables.map((t) => t.name);
    expect(names).toContain('messages');
    expect(names).not.toContain('only_elsewhere');
    expect(names).not.toContain('kysely_migration');
    expect(new Set(tables.map((t) => t.schema)).size).toBe(1);
    const sid = tables.find((t) => t.name === 'messages')!.columns.find((c) => c.name === 'sid')!;
    expect(sid).toMatchObject({ dataType: 'text', isNullable: false, isAutoIncrementing: false });
    const elsewhere = (await other.db.introspection.getTables()).find((t) => t.name === 'only_elsewhere')!;
    expect(elsewhere.columns.map((c) => [c.name, c.isAutoIncrementing])).toEqual([
      ['id', true],
      ['note', false],
    ]);
    const internal = await store.db.introspection.getTables({ withInternalKyselyTables: true });
    expect(internal.map((t) => t.name)).toContain('kysely_migration');
  });

  it('reads every schema of the search path, where unqualified names resolve, and no other', async () => {
    const store = await database().open();
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(store.db)).rows[0].s;
    const empty = await database().open();
    const emptySchema = (await sql<{ s: string }>`select current_schema() as s`.execute(empty.db)).rows[0].s;
    await sql`drop table messages cascade`.execute(empty.db);
    // Like `"$user", public` with the tables in public and a schema named after the user made later: the first
    // schema of the path lacks a table, so its name resolves to the next one's.
    const pool = new pg.Pool({
      connectionString: process.env.TEST_DATABASE_URL,
      options: `-c search_path=${emptySchema},${schema}`,
    });
    const both = new Kysely<any>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
    try {
      const tables = await both.introspection.getTables();
      const messages = tables.filter((t) => t.name === 'messages');
      expect(messages.map((t) => t.schema)).toEqual([schema]);
      expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([schema, emptySchema]));
    } finally {
      await both.destroy();
    }
  });

  it('migrates fresh schemas while tables of another schema are made and dropped without pause', async () => {
    const churn = database();
    const churned = await churn.open();
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(churned.db)).rows[0].s;
    const url = process.env.TEST_DATABASE_URL;
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    let stop = false;
    const churning = (async () => {
      for (let i = 0; !stop; i++) {
        await client.query(`create table churn_${i % 4} (id bigserial primary key, a text, b text)`);
        await client.query(`drop table churn_${i % 4}`);
      }
    })();
    try {
      for (let round = 0; round < 6; round++) await expect(database().open()).resolves.toBeDefined();
    } finally {
      stop = true;
      await churning;
      await client.end();
    }
  });
});
