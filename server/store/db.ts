// Opens the database (embedded SQLite by default, PostgreSQL with a URL) and applies migrations.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { createRequire } from 'node:module';
import { DEFAULT_MIGRATION_TABLE, Kysely, Migrator, SqliteAdapter, SqliteDialect, sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './schema.js';
import { migrationsFor, type MigrationContext } from './migrations/index.js';
import { OwnSchemaPostgresDialect } from './own-schema.js';
import { useNamedStatements } from './named-statements.js';
import { ENDED_TRANSACTION, GroupCommit, type StatementGate } from './sqlite/group-commit.js';
import { WalCheckpointer } from './sqlite/checkpointer.js';
import { registerConnection } from './sqlite/prepared.js';
import { systemClock, type Clock } from '../clock.js';
import { TransactionGroup, type PostgresHandles } from './transaction-group.js';
import { PostgresProbe } from './postgres-probe.js';

export type Dialect = 'sqlite' | 'postgres';

/** How many times a transaction or statement PostgreSQL ended as a deadlock's victim is tried in all. */
export const DEADLOCK_TRIES = 3;

/** A write refused by a foreign key: the row it refers to is gone (or, deleting, still referred to). */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}

/** PostgreSQL ended the transaction to break a deadlock (SQLSTATE deadlock_detected): it holds nothing any more. */
export function isDeadlock(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '40P01';
}

/**
 * Why a store cannot serve: `reason` is said to whoever asks (/readyz is public), `cause` only logged (a driver's
 * message may name hosts, users or paths).
 */
export interface Unhealthy {
  reason: string;
  cause?: string;
}
export type Db = Kysely<Database>;

/** A transaction plus hooks that run only once it has committed (wake-ups, notifications). */
export interface Tx {
  db: Transaction<Database>;
  afterCommit(fn: () => void): void;
  /** Its store's wake-ups (see Store.signals), for a queue to wake its loop once the work it added is committed. */
  signals: EventEmitter;
  /** The app instance's clock (the store's), for the time the transaction's writes record. */
  clock: Clock;
  /**
   * PostgreSQL: this transaction is shared with other jobs' (a TransactionGroup), whose statements interleave with its
   * own: a savepoint would undo theirs too, and is refused (which runs each member again alone).
   */
  shared?: true;
}

/** The events of Store.signals: a queue's work became due now. */
export type QueueSignal = 'jobs' | 'webhooks';

export interface StoreOptions {
  /** postgres://... ; when absent, SQLite in `dataDir`. */
  databaseUrl?: string | null;
  dataDir?: string;
  /** PostgreSQL only: keep every table in this schema (created when missing). Tests use one per server. */
  schema?: string;
  /** PostgreSQL only: `synchronous_commit` on every connection (DATABASE_SYNCHRONOUS_COMMIT); the database's own
   * when absent. */
  synchronousCommit?: string;
  /** PostgreSQL only: a statement's answer is awaited this long at most (ms; DATABASE_QUERY_TIMEOUT_MS), 0 for no
   * limit; migrations have none. */
  queryTimeoutMs?: number;
  logger?: Logger;
  /** Apply the migrations up to this one only (tests of an upgrade from an older version); all by default. */
  migrateTo?: string;
  /** The domain's time for everything built on this store (the system's by default; tests move a TestClock). */
  clock?: Clock;
  /**
   * The server secret, for migration 009 to seal existing webhook secrets with (see accounts/server-secret.ts).
   * Needed only to upgrade a database holding accounts from before 009.
   */
  serverSecret?: MigrationContext['serverSecret'];
}

export class Store {
  /**
   * Wakes this store's in-process queue loops (an event per QueueSignal) when work became due now, so they need not
   * wait for their next poll. One per store, not per process: two servers in one process do not wake each other.
   */
  readonly signals = new EventEmitter().setMaxListeners(0);

  constructor(
    readonly db: Db,
    readonly dialect: Dialect,
    /** PostgreSQL: the schema holding the tables, when one was chosen. */
    readonly schema?: string,
    /**
     * SQLite: the file behind `db` (with its statement cache), for the transactions to run on directly, and a
     * second, read-only connection for the reads made outside transactions.
     */
    private readonly sqlite?: {
      path: string;
      /** The file's inode when opened: another one at the path means the file was replaced. */
      ino: number;
      file: SQLite.Database;
      /** Refuses the file's statements while a group of transactions gives the event loop a turn. */
      gate: StatementGate;
      reader: SQLite.Database;
      logger?: Logger;
    },
    /** The app instance's clock: services and transactions read the current time from it. */
    readonly clock: Clock = systemClock,
    /** PostgreSQL: what its groups of transactions run on. */
    private readonly postgres?: PostgresHandles,
  ) {
    registerConnection(db, dialect, sqlite?.reader);
    if (!sqlite) {
      this.grouped = null;
      return;
    }
    const grouped = new GroupCommit(db, sqlite.file, this.signals, clock, sqlite.gate);
    this.grouped = grouped;
    this.checkpointer = new WalCheckpointer(sqlite.path, {
      finish: () => grouped.between(() => sqlite.file.pragma('wal_checkpoint(PASSIVE)')),
      logger: sqlite.logger,
    });
  }

  /** SQLite: copies the write-ahead log into the database file off the API's thread. */
  readonly checkpointer?: WalCheckpointer;

  private readonly grouped: GroupCommit | null;

  static async open(options: StoreOptions): Promise<Store> {
    const clock = options.clock ?? systemClock;
    const store = options.databaseUrl
      ? await openPostgres(options.databaseUrl, options, clock)
      : openSqlite(options.dataDir ?? './data', clock, options.logger);
    try {
      await store.migrate(options.migrateTo, { serverSecret: options.serverSecret });
    } catch (err) {
      // A start that cannot migrate leaves no connection (PostgreSQL's pool, SQLite's file) open behind it.
      await store.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  private async migrate(upTo: string | undefined, context: MigrationContext): Promise<void> {
    const provider = { getMigrations: () => Promise.resolve(migrationsFor(this.dialect, context)) };
    const migrator = new Migrator({
      db: this.sqlite ? migrationConnection(this.sqlite.file) : this.db,
      provider,
      ...(this.schema ? { migrationTableSchema: this.schema } : {}),
    });
    // A migration may rewrite a large table, and waits for another instance's to end: its statements have no deadline.
    const deadline = this.postgres?.deadline;
    const kept = deadline?.ms ?? 0;
    if (deadline) deadline.ms = 0;
    const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest()).finally(() => {
      if (deadline) deadline.ms = kept;
    });
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName;
      throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message}`);
    }
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.grouped) return this.grouped.run(fn);
    const hooks: (() => void)[] = [];
    const result = await this.db.transaction().execute((trx) => {
      registerConnection(trx, this.dialect);
      return fn({ db: trx, afterCommit: (h) => hooks.push(h), signals: this.signals, clock: this.clock });
    });
    for (const hook of hooks) hook();
    return result;
  }

  /**
   * `transaction`, run again (at most DEADLOCK_TRIES times in all) when PostgreSQL ended it to break a deadlock: it
   * was rolled back whole, and the other transaction went on. For work that changes nothing outside the database
   * but through its after-commit hooks (which only a committed run calls), and whose rows other requests may lock in
   * another order: two hang-ups of the two legs of one call each end their own leg, then its peer.
   */
  async transactionAgainOnDeadlock<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.transaction(fn);
      } catch (err) {
        if (!isDeadlock(err) || tries === DEADLOCK_TRIES) throw err;
      }
    }
  }

  /**
   * PostgreSQL: a group of `size` transactions that run as one and commit together (transaction-group.ts), for work
   * claimed together. Null on SQLite, whose group commit gathers every transaction already.
   */
  transactionGroup(size: number): TransactionGroup | null {
    return this.postgres ? new TransactionGroup(this, this.postgres, size) : null;
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /**
   * Why this store cannot serve now, or null when it can: its database answers, is still the file it opened
   * (SQLite), and holds every migration this version knows (a database restored from an older backup would not).
   * PostgreSQL is asked on a connection of its own, given up after `timeoutMs` (postgres-probe.ts).
   */
  async unhealthy(timeoutMs: number): Promise<Unhealthy | null> {
    if (this.sqlite) {
      // SQLite keeps reading a removed or replaced file through its open handle: look at the path itself.
      let ino: number;
      try {
        ino = fs.statSync(this.sqlite.path).ino;
      } catch (err) {
        const cause = `${this.sqlite.path}: ${(err as NodeJS.ErrnoException).code}`;
        return { reason: 'The database file cannot be read.', cause };
      }
      if (ino !== this.sqlite.ino)
        return { reason: 'The database file was replaced since the server opened it.', cause: this.sqlite.path };
    }
    let applied: Set<string>;
    try {
      applied = new Set((await this.migrationRows(timeoutMs)).map((row) => row.name));
    } catch (err) {
      return { reason: 'The database does not answer.', cause: (err as Error).message };
    }
    const pending = Object.keys(migrationsFor(this.dialect)).filter((name) => !applied.has(name));
    if (pending.length)
      return { reason: `The database lacks ${pending.length} migration(s) of this version: ${pending.join(', ')}.` };
    return null;
  }

  /** PostgreSQL: the connection `unhealthy` asks on, outside the pool (postgres-probe.ts). */
  private probe?: PostgresProbe;

  /** The migrations the database records (PostgreSQL: on the probe's connection, within `timeoutMs`). */
  private async migrationRows(timeoutMs: number): Promise<{ name: string }[]> {
    if (!this.postgres) {
      return (await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(this.db))
        .rows;
    }
    this.probe ??= new PostgresProbe(postgresDriver().Client, this.postgres.pool.options);
    return this.probe.rows(`select name from ${DEFAULT_MIGRATION_TABLE}`, timeoutMs);
  }

  async close(): Promise<void> {
    await this.probe?.close();
    // A group of transactions gives the event loop turns while it is open: the connection closes after it commits.
    await this.grouped?.between(() => undefined);
    await this.checkpointer?.close();
    await this.db.destroy();
    this.sqlite?.reader.close();
  }
}

/**
 * The data folder is the server's alone (0700), made if need be. One made by an older version (0755) is tightened
 * too, since it holds the database and the generated server secret; a folder someone else owns is left as it is.
 */
/** The SQLite database's file name in DATA_DIR. */
export const SQLITE_FILE = 'telephony.sqlite';

export function ensurePrivateDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const { uid, mode } = fs.statSync(dataDir);
  if (uid === process.getuid?.() && (mode & 0o077) !== 0) fs.chmodSync(dataDir, 0o700);
}

/**
 * The database file is made 0600 before SQLite opens it (SQLite gives its -wal and -shm files the database file's
 * mode), and the three are tightened to 0600 when an older version left them readable to others.
 */
function privateDatabaseFile(filePath: string): void {
  fs.closeSync(fs.openSync(filePath, 'a', 0o600));
  for (const file of [filePath, `${filePath}-wal`, `${filePath}-shm`]) {
    try {
      if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

function openSqlite(dataDir: string, clock: Clock, logger?: Logger): Store {
  ensurePrivateDir(dataDir);
  const filePath = path.join(dataDir, SQLITE_FILE);
  privateDatabaseFile(filePath);
  const file = new SQLite(filePath);
  // WAL lets the CLI and the server share the file; busy_timeout waits out the other's write.
  file.pragma('journal_mode = WAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  // The WAL is checkpointed from a thread of its own (see checkpointer.ts); this connection's own checkpoint at
  // 10,000 pages (about 40 MB, rather than SQLite's 1,000) is the backstop. The log is truncated when it starts
  // over, so that its size on disk tells the checkpointer how much it holds.
  file.pragma('wal_autocheckpoint = 10000');
  file.pragma('journal_size_limit = 0');
  // Each grouped transaction's savepoint, and each statement a trigger or a foreign key may abort, copies the pages it
  // changes into a sub-journal, which SQLite moves to a temporary file past 64 KiB: the pipeline's transactions passed
  // that, and every page copied became two write calls (see docs/performance.md). Kept in memory, it holds at most the
  // pages of the transaction in progress.
  file.pragma('temp_store = MEMORY');
  const gate: StatementGate = { refusing: false };
  const cached = withStatementCache(file, gate);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  // WAL lets a reader see the last committed state while the writer's transaction is open: reads outside
  // transactions neither wait for the group commit in progress nor see its uncommitted rows.
  const reader = new SQLite(filePath, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  const ino = fs.statSync(filePath).ino;
  const sqlite = { path: filePath, ino, file: cached, gate, reader: withStatementCache(reader), logger };
  return new Store(db, 'sqlite', undefined, sqlite, clock);
}

/**
 * Kysely's Migrator runs PostgreSQL's pending migrations, and their records in its table, in one transaction, but
 * SQLite's one by one outside any (its SqliteAdapter says SQLite has no transactional DDL, which it has): a crash
 * or an error halfway through a migration left a half-made schema that the next start could not apply again
 * ("already exists", "duplicate column"). Through this connection, the migrations of one start and their records
 * are one SQLite transaction too: all applied or none. (Not destroyed after use: that would close the file.)
 */
function migrationConnection(file: SQLite.Database): Kysely<any> {
  class TransactionalDdl extends SqliteAdapter {
    override get supportsTransactionalDdl(): boolean {
      return true;
    }
  }
  class Dialect extends SqliteDialect {
    override createAdapter() {
      return new TransactionalDdl();
    }
  }
  return new Kysely<any>({ dialect: new Dialect({ database: file }) });
}

/**
 * The SQL SQLite is given for `source`: the same statement, planned once. SQLite (3.53, better-sqlite3 12) reads the
 * value bound to a bare `limit ?` when it plans the statement, and marks the plan stale whenever that parameter is
 * bound again, which better-sqlite3 does at every run: such a statement was compiled anew at each run (the claims of
 * jobs and webhook events, `.limit()` of Kysely, pagination), 8-30 µs of the main thread each time, about 3% of its
 * instructions per message (docs/performance.md). `limit (? + 0)` is the same limit, which the planner does not read.
 */
export function plannedOnce(source: string): string {
  return source.replace(/\blimit \?(?![\w(])/gi, 'limit (? + 0)');
}

/**
 * Kysely prepares every query anew; the same few hundred SQL texts repeat, so keep their prepared statements.
 * Safe because better-sqlite3 runs one statement at a time and Kysely never streams from this driver here.
 * Every statement on the connection is prepared here first (Kysely's driver and the grouped transactions' direct
 * runs alike): while `gate` refuses, preparing one throws (see GroupCommit's turns).
 */
function withStatementCache(file: SQLite.Database, gate?: StatementGate): SQLite.Database {
  const statements = new Map<string, SQLite.Statement>();
  return new Proxy(file, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (source: string) => {
        if (gate?.refusing) throw new Error(ENDED_TRANSACTION);
        let statement = statements.get(source);
        if (!statement) {
          statement = target.prepare(plannedOnce(source));
          if (statements.size < 2000) statements.set(source, statement);
        }
        return statement;
      };
    },
  });
}

const INT8_OID = 20;

/** The PostgreSQL driver, loaded only when a database URL is given: the embedded default's start does without it. */
const postgresDriver = () => createRequire(import.meta.url)('pg') as typeof import('pg');

async function openPostgres(
  url: string,
  { schema, logger, synchronousCommit, queryTimeoutMs = 0 }: StoreOptions,
  clock: Clock,
): Promise<Store> {
  if (schema) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid PostgreSQL schema name "${schema}"`);
    const client = new (postgresDriver().Client)({ connectionString: url });
    await client.connect();
    try {
      await client.query(`create schema if not exists "${schema}"`);
    } finally {
      await client.end();
    }
  }
  const pg = postgresDriver();
  const options = [
    ...(schema ? [`-c search_path=${schema}`] : []),
    ...(synchronousCommit ? [`-c synchronous_commit=${synchronousCommit}`] : []),
  ];
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A request waits at most this long for a connection (all of them stuck on a silent network, say), then fails.
    connectionTimeoutMillis: 10_000,
    // Connections to a peer gone silent are found out by the kernel in time, and leave the pool.
    keepAlive: true,
    // Several queries on the wire at once: a transaction's `begin` and deferred writes go in one write with its next
    // statement (named-statements.ts).
    pipeline: true,
    ...(options.length ? { options: options.join(' ') } : {}),
    // Counts and bigserial ids fit in a JS number.
    types: {
      getTypeParser: (oid: number, format?: any) => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)),
    },
  });
  // A connection that breaks (the database restarted, a network cut) leaves the pool, which opens another when next
  // needed; the query it was running fails on its own. Unhandled, the connection's error would end the process: the
  // pool listens only on idle connections, so each connection gets its own listener too.
  const broken = (err: Error) => logger?.warn({ err }, 'a PostgreSQL connection broke; the pool opens another');
  pool.on('error', broken);
  const deadline = { ms: queryTimeoutMs };
  pool.on('connect', (client) => {
    client.on('error', broken);
    useNamedStatements(client, deadline);
  });
  const dialect = new OwnSchemaPostgresDialect({ pool });
  const db = new Kysely<Database>({ dialect });
  const props = { config: { dialect }, dialect, driver: dialect.createDriver() };
  return new Store(db, 'postgres', schema, undefined, clock, { pool, props, deadline });
}

/** Drops a PostgreSQL schema made for a test. */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const client = new (postgresDriver().Client)({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
