// PostgreSQL: the hot statements as named prepared statements. node-postgres sends a query unnamed unless told a
// name, and PostgreSQL then parses and plans it anew on every run; a named one is parsed once per connection, and
// after five runs may keep a generic plan. Only statements marked here are named, each text once (a name is never
// reused for another text), at most MAX_NAMED of them, so that a connection keeps a bounded set.
//
// Every statement of `prepared()` (store/sqlite/prepared.ts) is marked: key lookups and writes, whose plan does not
// depend on their parameters' values. Not for one whose best plan does (a claim's `run_at <= $1`, where a generic
// plan cannot bound the range): the claims are written with `sql` and stay unnamed, planned per run.
import type pg from 'pg';

const MAX_NAMED = 100;
const names = new Map<string, string>();

/** Runs this SQL text as a named prepared statement on every PostgreSQL connection, from now on. */
export function nameStatement(sql: string): void {
  if (!names.has(sql) && names.size < MAX_NAMED) names.set(sql, `s${names.size + 1}`);
}

/** Makes a connection of the pool send the statements marked by `nameStatement` by their names. */
export function useNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof text === 'string' && Array.isArray(values) ? names.get(text) : undefined;
    return name ? query({ name, text, values }, callback) : query(text, values, callback);
  };
}
