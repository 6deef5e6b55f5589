// PostgreSQL: every function the migrations make runs with the server's schema as its search path, so a trigger
// fired from a session on another path (an operator's psql) finds its own tables, not another schema's or none.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

describe.runIf(ENGINES.includes('postgres'))('functions of the schema (postgres)', () => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  it("each runs with the schema's search path", async () => {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    const { rows } = await sql<{ name: string; config: string[] | null; schema: string }>`
      select p.proname as name, p.proconfig as config, current_schema() as schema
      from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
      where n.nspname = current_schema() order by p.proname`.execute(store.db);
    expect(rows.map((r) => r.name)).toEqual([
      'carrier_send_slot_take',
      'job_held',
      'message_queue_admit',
      'message_queue_admit_many',
      'message_queue_count',
      'number_holdings_bump',
      'number_pool_version',
      'proxy_open_count',
      'webhook_event_release',
      'webhook_events_release_all',
    ]);
    for (const row of rows) expect([row.name, row.config]).toEqual([row.name, [`search_path=${row.schema}`]]);
  });
});
