// Queries of the hot paths, built with Kysely once per shape and engine instead of on every call.
//
// Building and compiling a Kysely query costs more than SQLite takes to run a simple one (about a sixth of the
// server's time under the message load). `prepared(build)` calls `build` once with placeholder arguments,
// compiles it, and remembers where each argument went among the SQL parameters; later calls only fill them in.
//
// Arguments may be scalars, arrays (an `in (...)` list) or plain objects (a row for `values`, a change for
// `set`); the shape (array lengths, which object keys are present and defined) selects the compiled form, so an
// object with another set of columns gets its own. `build` must use each argument only as a value, never to
// decide the query's structure from its contents (no `if (arg === ...)` inside it).
import type SQLite from 'better-sqlite3';
import type { Compilable, CompiledQuery, QueryResult, Transaction } from 'kysely';
import type { Db, Dialect } from '../db.js';
import type { Database } from '../schema.js';
import { deferStatement, nameStatement } from '../named-statements.js';

type Conn = Db | Transaction<Database>;

const dialects = new WeakMap<object, Dialect>();
const readers = new WeakMap<object, SQLite.Database>();

/**
 * The store tells which engine a connection (the root or one of its transactions) speaks, and for the SQLite
 * root, the read-only connection its reads may run on directly.
 */
export function registerConnection(conn: object, dialect: Dialect, reader?: SQLite.Database): void {
  dialects.set(conn, dialect);
  if (reader) readers.set(conn, reader);
}

const sqliteHandles = new WeakMap<object, SQLite.Database>();

/**
 * SQLite: while a transaction owns the file's one connection, its queries may run on the file directly and at
 * once, skipping Kysely's driver (its connection mutex and promise chain cost more than SQLite takes to run a
 * simple statement). Pass null when the transaction ends, so a stray handle cannot reach the file outside it.
 */
export function runDirectly(trx: object, file: SQLite.Database | null): void {
  if (file) sqliteHandles.set(trx, file);
  else sqliteHandles.delete(trx);
}

const postgresHandles = new WeakMap<object, PostgresDirect>();

/** A PostgreSQL connection a transaction holds alone, which runs a compiled statement as Kysely's driver would. */
export interface PostgresDirect {
  executeQuery<R>(query: { sql: string; parameters: readonly unknown[] }): Promise<QueryResult<R>>;
}

/**
 * PostgreSQL: a group of transactions (transaction-group.ts) holds its connection alone, so its statements may go to
 * the connection directly, skipping Kysely's executor (its connection provider's and driver's promise chain).
 */
export function runDirectlyOnPostgres(trx: object, connection: PostgresDirect): void {
  postgresHandles.set(trx, connection);
}

/** What Kysely's SQLite driver answers for the statement, without the driver. */
function runOnFile<R>(file: SQLite.Database, sql: string, parameters: unknown[]): QueryResult<R> {
  const statement = file.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes } = statement.run(parameters);
  return { rows: [], numAffectedRows: BigInt(changes) };
}

/** Where a compiled parameter comes from: an argument, a member of an argument, or a constant of the query. */
type Slot = { arg: number; key?: string | number } | { value: unknown };

interface Compiled {
  query: CompiledQuery;
  slots: Slot[];
}

// NUL brackets a placeholder: a character no SQL text or value of ours contains.
// eslint-disable-next-line no-control-regex
const PLACEHOLDER = /^\u0000(\d+)(?:\.(.+))?\u0000$/;

export interface Prepared<A extends unknown[], R> {
  all(conn: Conn, ...args: A): Promise<R[]>;
  first(conn: Conn, ...args: A): Promise<R | undefined>;
  /** Runs it and returns the number of rows it changed (or returned). */
  run(conn: Conn, ...args: A): Promise<number>;
}

/** The longest list argument a named shape may hold (the statuses a transition may follow, say). */
const NAMED_LIST_LENGTH = 8;

interface PreparedOptions {
  /**
   * PostgreSQL: a write whose result nobody reads (`run`'s count is 1 inside a transaction), sent with the
   * transaction's next statement rather than alone (see named-statements.ts, deferStatement).
   */
  deferred?: boolean;
}

export function prepared<A extends unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
  options: PreparedOptions = {},
): Prepared<A, R> {
  const cache = new Map<string, Compiled>();

  function compiled(conn: Conn, args: A): Compiled {
    const dialect = dialects.get(conn);
    if (!dialect) throw new Error('prepared: a connection the store did not register');
    const key = dialect + shapeOf(args);
    let entry = cache.get(key);
    if (!entry) {
      entry = compile(conn as Db, build, args);
      // PostgreSQL: each shape's text a named statement, parsed once per connection (see named-statements.ts).
      // Not a shape of a long list (a batch's numbers): each length would take a name of the bounded set.
      if (dialect === 'postgres' && !args.some((arg) => Array.isArray(arg) && arg.length > NAMED_LIST_LENGTH)) {
        nameStatement(entry.query.sql);
      }
      if (dialect === 'postgres' && options.deferred) deferStatement(entry.query.sql);
      cache.set(key, entry);
    }
    return entry;
  }

  async function execute(conn: Conn, args: A): Promise<QueryResult<R>> {
    const { query, slots } = compiled(conn, args);
    const parameters = slots.map((slot) => {
      if ('value' in slot) return slot.value;
      const arg = args[slot.arg] as any;
      return slot.key === undefined ? arg : arg[slot.key];
    });
    const file = sqliteHandles.get(conn);
    if (file) return runOnFile<R>(file, query.sql, parameters);
    const direct = postgresHandles.get(conn);
    if (direct) return direct.executeQuery<R>({ sql: query.sql, parameters });
    const reader = readers.get(conn);
    if (reader) {
      const statement = reader.prepare(query.sql);
      if (statement.readonly) return { rows: statement.all(parameters) as R[] };
    }
    return conn.executeQuery<R>({ query: query.query, queryId: query.queryId, sql: query.sql, parameters });
  }

  return {
    all: async (conn, ...args) => (await execute(conn, args)).rows,
    first: async (conn, ...args) => (await execute(conn, args)).rows[0],
    run: async (conn, ...args) => {
      const result = await execute(conn, args);
      // A statement with `returning` reports its rows instead of a count on SQLite.
      return result.numAffectedRows === undefined ? result.rows.length : Number(result.numAffectedRows);
    },
  };
}

function shapeOf(args: unknown[]): string {
  let shape = '';
  for (const arg of args) {
    if (Array.isArray(arg)) shape += `|[${arg.length}]`;
    else if (arg !== null && typeof arg === 'object') {
      shape += '|{';
      for (const k in arg) if ((arg as Record<string, unknown>)[k] !== undefined) shape += `${k},`;
      shape += '}';
    } else shape += '|';
  }
  return shape;
}

function compile<A extends unknown[], R>(db: Db, build: (db: Db, ...args: A) => Compilable<R>, args: A): Compiled {
  const mark = (i: number, key?: string | number) => `\u0000${i}${key === undefined ? '' : `.${key}`}\u0000`;
  const placeholders = args.map((arg, i) => {
    if (Array.isArray(arg)) return arg.map((_, j) => mark(i, j));
    if (arg !== null && typeof arg === 'object') {
      return Object.fromEntries(
        Object.entries(arg)
          .filter(([, v]) => v !== undefined)
          .map(([k]) => [k, mark(i, k)]),
      );
    }
    return mark(i);
  }) as A;
  const query = build(db, ...placeholders).compile();
  const used = new Set<number>();
  const slots = query.parameters.map((p): Slot => {
    const m = typeof p === 'string' ? PLACEHOLDER.exec(p) : null;
    if (!m) return { value: p };
    const arg = Number(m[1]);
    used.add(arg);
    if (m[2] === undefined) return { arg };
    return { arg, key: Array.isArray(args[arg]) ? Number(m[2]) : m[2] };
  });
  args.forEach((arg, i) => {
    const empty = arg !== null && typeof arg === 'object' && Object.keys(placeholders[i] as object).length === 0;
    if (!used.has(i) && !empty) throw new Error(`prepared: argument ${i} is not a value of the query (${query.sql})`);
  });
  return { query, slots };
}
