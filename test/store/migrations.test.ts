// Migrations are all or nothing: the pending migrations of a start, and their records, are one transaction on both
// engines (Kysely makes it one on PostgreSQL only; the store makes it one on SQLite too). A migration that fails
// partway leaves the schema as it was before the start, and the next start applies them cleanly.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/db.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

const applied = async (store: Store) =>
  (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db)).rows.map(
    (r) => r.name,
  );
/** Whether `select <column> from <table>` runs: the table and its column exist. */
const hasColumn = (store: Store, table: string, column: string) =>
  sql`select ${sql.ref(column)} from ${sql.table(table)} where 1 = 0`.execute(store.db).then(
    () => true,
    () => false,
  );

describe.each(ENGINES)('migrations (%s)', (engine) => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  function database() {
    const db = freshDatabase(engine);
    dispose = () => db.dispose();
    return db;
  }

  it('010 failing at its last statement leaves neither of its new columns, and applies once unblocked', async () => {
    const db = database();
    const before = await db.open({ migrateTo: '009_sealed_secrets' });
    // The index 010 makes last, already there: its two ALTERs run, then it fails.
    await sql`create index webhook_events_dead on webhook_events (type)`.execute(before.db);
    await before.close();

    await expect(db.open()).rejects.toThrow(/^database migration 010_claim_counts failed: .*already exists/);

    const after = await db.open({ migrateTo: '009_sealed_secrets' });
    expect(await applied(after)).not.toContain('010_claim_counts');
    expect(await hasColumn(after, 'jobs', 'claims')).toBe(false);
    expect(await hasColumn(after, 'webhook_events', 'claims')).toBe(false);
    await sql`drop index webhook_events_dead`.execute(after.db);
    await after.close();

    const store = await db.open();
    expect(await applied(store)).toContain('011_rate_limits');
    expect(await hasColumn(store, 'jobs', 'claims')).toBe(true);
    expect(await hasColumn(store, 'webhook_events', 'claims')).toBe(true);
  });

  it("011 failing partway undoes it and the start's 009 and 010 too, then applies cleanly", async () => {
    const db = database();
    const before = await db.open({ migrateTo: '008_webhook_queue' });
    // What 011 makes after its table and its fill, already there: SQLite's last trigger, PostgreSQL's function.
    const conflict =
      engine === 'sqlite'
        ? sql`create trigger messages_queued_delete after delete on messages begin select 1; end`
        : sql`create function message_queue_count() returns trigger language plpgsql as $$ begin return null; end $$`;
    await conflict.execute(before.db);
    await before.close();

    await expect(db.open()).rejects.toThrow(/^database migration 011_rate_limits failed: .*already exists/);

    const after = await db.open({ migrateTo: '008_webhook_queue' });
    expect((await applied(after)).at(-1)).toBe('008_webhook_queue');
    expect(await hasColumn(after, 'message_queue_counts', 'queued')).toBe(false);
    expect(await hasColumn(after, 'jobs', 'claims')).toBe(false);
    expect(await hasColumn(after, 'sandbox_otp_deliveries', 'sealed')).toBe(false);
    if (engine === 'postgres') expect(await hasColumn(after, 'rate_limits', 'points')).toBe(false);
    await sql
      .raw(engine === 'sqlite' ? 'drop trigger messages_queued_delete' : 'drop function message_queue_count()')
      .execute(after.db);
    await after.close();

    const store = await db.open();
    // The start's migrations after 008 are all applied (the ones after 012 as well, whichever there are).
    expect(await applied(store)).toEqual(
      expect.arrayContaining(['009_sealed_secrets', '010_claim_counts', '011_rate_limits', '012_calls']),
    );
    expect(await hasColumn(store, 'message_queue_counts', 'queued')).toBe(true);
    expect(await hasColumn(store, 'jobs', 'claims')).toBe(true);
    expect(await hasColumn(store, 'sandbox_otp_deliveries', 'sealed')).toBe(true);
  });
});

// Kysely's PostgreSQL Migrator locks the whole database while it migrates; the store locks its schema instead.
describe.runIf(ENGINES.includes('postgres'))('the migration lock (postgres)', () => {
  const KYSELY_LOCK = '3853314791062309107';
  const SCHEMA_LOCK = "hashtextextended('telephony-api migrations ' || coalesce(current_schema(), ''), 0)";
  const disposals: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const dispose of disposals.splice(0)) await dispose();
  });
  const fresh = () => {
    const db = freshDatabase('postgres');
    disposals.push(() => db.dispose());
    return db;
  };
  /** 'opened', or 'waiting' when the store has not opened within `ms`. */
  const within = (opening: Promise<Store>, ms: number) =>
    Promise.race([opening.then(() => 'opened'), new Promise((resolve) => setTimeout(() => resolve('waiting'), ms))]);

  it("migrates a schema while another schema's migrations hold Kysely's lock for the whole database", async () => {
    const other = fresh();
    await other.open();
    const holder = await other.connect();
    disposals.unshift(() => holder.end());
    await holder.query(`select pg_advisory_lock(${KYSELY_LOCK})`);
    expect(await within(fresh().open(), 10_000)).toBe('opened');
  });

  it('makes a second instance of one schema wait for the first one’s migrations', async () => {
    const db = fresh();
    await db.open();
    const holder = await db.connect();
    disposals.unshift(() => holder.end());
    await holder.query(`select pg_advisory_lock(${SCHEMA_LOCK})`);
    const second = db.open();
    expect(await within(second, 1_000)).toBe('waiting');
    await holder.query(`select pg_advisory_unlock(${SCHEMA_LOCK})`);
    expect(await within(second, 10_000)).toBe('opened');
  });

  it('gives migrations no statement deadline, their wait for another instance included; the rest one', async () => {
    const db = fresh();
    await db.open();
    const holder = await db.connect();
    disposals.unshift(() => holder.end());
    await holder.query(`select pg_advisory_lock(${SCHEMA_LOCK})`);
    const second = db.open({ queryTimeoutMs: 300 });
    expect(await within(second, 1_000)).toBe('waiting');
    await holder.query(`select pg_advisory_unlock(${SCHEMA_LOCK})`);
    expect(await within(second, 10_000)).toBe('opened');
    const store = await second;
    const late = sql`select pg_sleep(1)`.execute(store.db);
    await expect(late).rejects.toThrow('the database did not answer a statement within 300 ms');
    // Inside a transaction too: its rollback on the closed connection does not hide the cause.
    const inTransaction = store.transaction((tx) => sql`select pg_sleep(1)`.execute(tx.db));
    await expect(inTransaction).rejects.toThrow('the database did not answer a statement within 300 ms');
    // The connection closed at the deadline left the pool: the next statement runs on another.
    expect((await sql<{ one: number }>`select 1 as one`.execute(store.db)).rows).toEqual([{ one: 1 }]);
  });
});
