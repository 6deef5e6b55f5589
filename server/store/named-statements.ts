// PostgreSQL: the hot statements as named prepared statements. node-postgres sends a query unnamed unless told a
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

const MAX_NAMED = 100;
const names = new Map<string, string>();

/** Runs this SQL text as a named prepared statement on every PostgreSQL connection, from now on. */
export function nameStatement(sql: string): void {
  if (!names.has(sql) && names.size < MAX_NAMED) names.set(sql, `s${names.size + 1}`);
}

/** The error PostgreSQL answers, on every later run, a prepared statement whose result's columns changed (a column
 * added to a table it reads with `*`) since it was parsed: its SQLSTATE (feature_not_supported). */
const CHANGED_RESULT = '0A000';

/**
 * Makes a connection of the pool send the statements marked by `nameStatement` by their names. A name whose
 * statement went stale on this connection (a migration of another instance added a column to a table it reads with
 * `*`) is sent unnamed from then on, and the run that found it is tried once more unnamed (that retry fails too
 * inside a transaction, which the error ended: the transaction's own caller sees the first error).
 */
export function useNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const stale = new Set<string>();
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof text === 'string' && Array.isArray(values) ? names.get(text) : undefined;
    if (!name || stale.has(name) || callback !== undefined) return query(text, values, callback);
    return (query({ name, text, values }) as Promise<unknown>).catch((err: { code?: string }) => {
      if (err?.code !== CHANGED_RESULT) throw err;
      stale.add(name);
      return (query(text, values) as Promise<unknown>).catch(() => {
        throw err;
      });
    });
  };
}
