// A database of its own for a store-level test (no server): a temporary SQLite folder or a PostgreSQL schema.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Store, dropPostgresSchema, type StoreOptions } from '../../server/store/db.js';
import type { Engine } from './server.js';

/** A fresh database for one test; `open()` may be called again to reopen the same one (a restart). */
export function freshDatabase(engine: Engine) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-test-'));
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const url = process.env.TEST_DATABASE_URL ?? null;
  const opened: Store[] = [];
  return {
    /** SQLite: the folder of the database file. */
    dataDir,
    /** PostgreSQL: the database's URL and the test's schema in it, for a test's own connections. */
    url,
    schema,
    /** PostgreSQL: a connection of the test's own to its schema (each statement committed alone until a `begin`). */
    async connect(): Promise<pg.Client> {
      const client = new pg.Client({ connectionString: url!, options: `-c search_path=${schema}` });
      await client.connect();
      return client;
    },
    /**
     * `migrateTo`: leave it at that migration, as an older version left it; `clock`: the store's (a TestClock);
     * `serverSecret`: for migration 009 to seal the webhook secrets of accounts made before it.
     */
    async open(options: Pick<StoreOptions, 'migrateTo' | 'clock' | 'serverSecret' | 'queryTimeoutMs'> = {}) {
      const store = await Store.open(
        engine === 'postgres' ? { databaseUrl: url, schema, ...options } : { dataDir, ...options },
      );
      opened.push(store);
      return store;
    },
    async dispose() {
      await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
      if (engine === 'postgres') await dropPostgresSchema(url!, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
