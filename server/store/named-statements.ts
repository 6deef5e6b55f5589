// PostgreSQL: the hot statements as named prepared statements, and a transaction's statements in fewer writes to the
// socket (below, "fewer writes"). node-postgres sends a query unnamed unless told a
// name, and PostgreSQL then parses and plans it anew on every run; a named one is parsed once per connection, and
// after five runs may keep a generic plan. Only statements marked here are named, each text once (a name is never
// reused for another text), at most MAX_NAMED of them, so that a connection keeps a bounded set.
//
// Every statement of `prepared()` (store/sqlite/prepared.ts) is marked: key lookups and writes, whose plan does not
// depend on their parameters' values. Not for one whose best plan does (a claim's `run_at <= $1`, where a generic
// plan cannot bound the range): the claims are written with `sql` and stay unnamed, planned per run. Nor a shape
// made for a long list (`in` of a lookup batch's numbers): each length is a text of its own, and they would spend the
// names on shapes seldom run again (see prepared.ts).
import type pg from 'pg';

// A process running 53 of the PostgreSQL test files (messages, calls, proxy, verify, webhooks, jobs, numbers, lookups)
// named 78 texts on 2026-11-27: every feature of one server comes near 100, past which its later texts would run
// unnamed, parsed and planned at every run. A named statement holds its plan in each connection's backend.
const MAX_NAMED = 200;
const names = new Map<string, string>();

/** Runs this SQL text as a named prepared statement on every PostgreSQL connection, from now on. */
export function nameStatement(sql: string): void {
  if (!names.has(sql) && names.size < MAX_NAMED) names.set(sql, `s${names.size + 1}`);
}

/** The error PostgreSQL answers, on every later run, a prepared statement whose result's columns changed (a column
 * added to a table it reads with `*`) since it was parsed: its SQLSTATE (feature_not_supported). */
const CHANGED_RESULT = '0A000';

// Fewer writes to the database's socket. Each statement is one write (node-postgres corks its messages),
// and on loopback a write costs the main thread more than the driver's parsing (the socket's writes were a quarter
// of the main thread through the pipeline). The connections run in node-postgres's pipeline mode (several queries
// on the wire at once, each with its own Sync, so each answers or fails on its own), and inside a transaction:
// - its `begin` is not sent alone but in one write with the transaction's first statement (or not at all, for a
//   transaction that sends nothing);
// - a statement marked by `deferStatement` (a write whose result nobody reads: a webhook event's insert) is held and
//   sent in one write with the transaction's next statement, its `commit` at the latest, in the order written. Its
//   error fails that next statement (the transaction is aborted then either way), and a `commit` that carried a
//   failed write fails too: the transaction rolls back, as when the write failed alone. A statement sent with a
//   failed write fails with that write's error (the cause), and a `commit` PostgreSQL answers `ROLLBACK` (a caller
//   caught such an error and went on) is an error, never a success. A `rollback to` a savepoint drops the writes
//   held since (they came after the savepoint, which was sent) without sending them.
const deferred = new Set<string>();

/** Sends this SQL text, run inside a transaction, with the transaction's next statement (it answers no rows and
 * its caller reads no count: it is answered as one row written at once). */
export function deferStatement(sql: string): void {
  deferred.add(sql);
}

/**
 * How long a statement's answer may take (ms; 0: no limit), read at each statement (DATABASE_QUERY_TIMEOUT_MS). A
 * database or network path gone silent would otherwise hold a request, a job or a shutdown until the kernel gives
 * the connection up, which takes minutes to hours; past the deadline the statement fails and its connection closes.
 */
export interface StatementDeadline {
  ms: number;
}

/** A statement the database did not answer within its deadline: its connection was closed with this. */
export class StatementDeadlineError extends Error {
  constructor(ms: number) {
    super(
      `the database did not answer a statement within ${ms} ms (DATABASE_QUERY_TIMEOUT_MS); its connection is closed`,
    );
  }
}

interface Sent {
  command: string;
  rowCount: number | null;
  rows: unknown[];
}

const answered = (command: string, rowCount: number | null): Promise<Sent> =>
  Promise.resolve({ command, rowCount, rows: [] });

/**
 * Makes a connection of the pool send the statements marked by `nameStatement` by their names, and batch a
 * transaction's `begin` and deferred writes (above). A name whose statement went stale on this connection (a
 * migration of another instance added a column to a table it reads with `*`) is sent unnamed from then on, and the
 * run that found it is tried once more unnamed (that retry fails too inside a transaction, which the error ended:
 * the transaction's own caller sees the first error).
 */
export function useNamedStatements(client: pg.PoolClient, deadline: StatementDeadline): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
  const run = runner(client, deadline);
  const stale = new Set<string>();
  const send = (text: string, values: unknown[] | undefined): Promise<Sent> => {
    const name = values ? names.get(text) : undefined;
    if (!name || stale.has(name)) return run(text, values);
    return run(text, values, name).catch((err: { code?: string }) => {
      if (err?.code !== CHANGED_RESULT) throw err;
      stale.add(name);
      return run(text, values).catch(() => {
        throw err;
      });
    });
  };
  let inTransaction = false;
  let beginHeld = false;
  let held: { text: string; values: unknown[] }[] = [];
  /** Sends what is held, then this statement, in one write: its answer, or the first error among them. */
  const sendWithHeld = (text: string, values: unknown[] | undefined): Promise<Sent> => {
    if (!beginHeld && !held.length) return send(text, values);
    const sent: Promise<Sent>[] = [];
    stream.cork();
    try {
      if (beginHeld) sent.push(send('begin', undefined));
      for (const write of held) sent.push(send(write.text, write.values));
      sent.push(send(text, values));
    } finally {
      beginHeld = false;
      held = [];
      stream.uncork();
    }
    // Each answers or fails on its own: the first failure in the order sent is the cause (a later statement of an
    // aborted transaction only answers that it was aborted, and may settle first).
    return Promise.allSettled(sent).then((results) => {
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      return (results[results.length - 1] as PromiseFulfilledResult<Sent>).value;
    });
  };
  /** A commit PostgreSQL answered `ROLLBACK`: the transaction had failed (a deferred write's error, caught by a
   * caller as its own statement's), and nothing of it was written. */
  const committed = (answer: Sent): Sent => {
    if (answer.command === 'ROLLBACK') throw new Error('the transaction was rolled back: one of its statements failed');
    return answer;
  };
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text !== 'string' || (values !== undefined && !Array.isArray(values)) || callback !== undefined) {
      if (inTransaction) throw new Error('a query not sent by Kysely inside a transaction of the store');
      return query(text, values, callback);
    }
    const list = values as unknown[] | undefined;
    if (text === 'begin' && !list?.length) {
      inTransaction = true;
      beginHeld = true;
      return answered('BEGIN', null);
    }
    if (!inTransaction) return send(text, list);
    // A connection closed under the transaction (its deadline passed, the network broke) holds nothing to roll back:
    // answered at once, so the transaction's caller sees the error that ended it, not the rollback's on a dead line.
    if (text === 'rollback' && !list?.length && !(client as { _queryable?: boolean })._queryable) {
      inTransaction = false;
      beginHeld = false;
      held = [];
      return answered('ROLLBACK', null);
    }
    if ((text === 'commit' || text === 'rollback') && !list?.length) {
      inTransaction = false;
      if (text === 'rollback') held = [];
      // Nothing was sent: nothing to end.
      if (beginHeld && !held.length) {
        beginHeld = false;
        return answered(text.toUpperCase(), null);
      }
      const ended = sendWithHeld(text, undefined);
      return text === 'commit' ? ended.then(committed) : ended;
    }
    // Writes held since the savepoint was set are undone by its rollback: they are not sent.
    if (/^rollback to /i.test(text)) held = [];
    if (deferred.has(text)) {
      held.push({ text, values: list ?? [] });
      return answered('INSERT', 1);
    }
    return sendWithHeld(text, list);
  };
}

// The driver's cost per statement. node-postgres 8.23, for every query: copies a query given as an object with
// `Object.getOwnPropertyDescriptors` (a named statement is one), and on its row description looks up each column's
// parser and builds the row template anew in a dictionary-mode object (`Result.addFields`): about a tenth of the main
// thread per statement, the same work each time a statement runs. Here a query is made from its text (no copy; the
// name set after), and a connection keeps the parsers and template of each shape of result it has seen, by the
// columns' names, types and formats. The connection's type parsers are fixed when the pool makes it (db.ts); a
// parser set on it later would not reach the shapes kept. Upstream: brianc/node-postgres#3753 caches the same in the
// driver; drop this once it ships.

interface Field {
  name: string;
  dataTypeID: number;
  format?: string;
}

interface DriverResult {
  fields: Field[];
  _types: unknown;
  _parsers?: unknown[];
  _prebuiltEmptyResultObject: object | null;
  addFields(fields: Field[]): void;
}

interface DriverQuery {
  name?: string;
  callback?: (err: Error | null, result: Sent) => void;
  _result: DriverResult;
}

/** Result shapes kept per connection, at most (a connection runs a bounded set of statement texts). */
const MAX_SHAPES = 500;

/** Runs a statement on `client` (by `name` when given) with the savings above: its answer. */
function runner(
  client: pg.PoolClient,
  deadline: StatementDeadline,
): (text: string, values: unknown[] | undefined, name?: string) => Promise<Sent> {
  const Query = (client.constructor as unknown as { Query: new (text: string, values?: unknown[]) => DriverQuery })
    .Query;
  const query = client.query.bind(client) as (query: DriverQuery) => unknown;
  const { stream } = (client as unknown as { connection: { stream: { destroy(err: Error): void } } }).connection;
  // Past the deadline the connection is closed with this error: node-postgres then marks it unusable, so that the
  // pool drops it when it is given back, and fails every statement sent on it with the error (pipeline mode: a
  // statement behind an unanswered one would wait as long).
  const expire = (ms: number) => stream.destroy(new StatementDeadlineError(ms));
  const shapes = new Map<string, { parsers: unknown[] | undefined; template: object | null }>();
  function addFields(this: DriverResult, fields: Field[]): void {
    let key = '';
    for (const field of fields) key += `${field.name}\0${field.dataTypeID}\0${field.format ?? ''}\0`;
    const shape = shapes.get(key);
    if (shape) {
      this.fields = fields;
      this._parsers = shape.parsers;
      this._prebuiltEmptyResultObject = shape.template;
      return;
    }
    Object.getPrototypeOf(this).addFields.call(this, fields);
    if (shapes.size < MAX_SHAPES)
      shapes.set(key, { parsers: this._parsers, template: this._prebuiltEmptyResultObject });
  }
  return (text, values, name) =>
    new Promise<Sent>((resolve, reject) => {
      const made = new Query(text, values);
      if (name) made.name = name;
      const ms = deadline.ms;
      const timer = ms ? setTimeout(expire, ms, ms) : undefined;
      made.callback = (err, result) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(result);
      };
      made._result.addFields = addFields;
      query(made);
    });
}
