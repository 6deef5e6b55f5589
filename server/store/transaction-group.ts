// PostgreSQL: the transactions of several jobs claimed together run as one transaction on one connection, their
// statements sent without waiting for each other's answers, and committed together.
//
// On PostgreSQL the main thread's cost of a statement is mostly the event loop's wake-up around its answer, not the
// bytes (docs/performance.md, "PostgreSQL's round trips"): a job's transaction is two round trips (the statement
// whose answer its step needs, then its deferred writes with the commit), each a write to the socket and a wake-up.
// Members of a group send their statements on one connection in pipeline mode: the statements the members issue
// in one turn of the event loop share the wake-up of their answers, and the members' deferred writes and the one
// commit go in one write. SQLite gets the same from its group commit (sqlite/group-commit.ts).
//
// A group commits only when every member's transaction succeeded, and then all of them together. When any failed
// (its own error, a statement PostgreSQL refused, which aborts the whole transaction, or a deadlock with another
// group), nothing of the group is written and each member is told `GroupFailed`: its caller runs it again alone, in
// a transaction of its own. So a member must have no effect outside its transaction before that transaction ends.
// Statements of interleaved members cannot be undone apart: a savepoint in a group's transaction is refused
// (`Tx.shared`), which fails the group, and its members run alone, where savepoints work.
import type pg from 'pg';
import { Transaction, type DatabaseConnection, type QueryResult } from 'kysely';
import type { Database } from './schema.js';
import type { Store, Tx } from './db.js';
import type { StatementDeadline } from './named-statements.js';
import { registerConnection, runDirectlyOnPostgres } from './sqlite/prepared.js';

/** The group a transaction ran in did not commit: nothing of it was written. Run it again alone. */
export class GroupFailed extends Error {
  constructor(cause: unknown) {
    super('the group of transactions this one ran in did not commit', { cause });
  }
}

/** What a PostgreSQL store gives its groups: its pool, and Kysely's props for a transaction of its own making. */
export interface PostgresHandles {
  pool: pg.Pool;
  /** The deadline of every statement on the pool's connections, lifted while this store migrates. */
  deadline: StatementDeadline;
  /** Kysely's props but the executor (a Transaction needs them; only its executor is used). */
  props: Omit<ConstructorParameters<typeof Transaction<Database>>[0], 'executor'>;
}

/** One member's share of a group: its transaction, or its word that it runs none. */
export interface GroupMember {
  /**
   * Runs `fn` as this member's transaction, in the group's: resolves with its result once the group committed;
   * rejects with `GroupFailed` when the group did not (this member's failure included). A second call runs alone.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** This member runs no transaction in the group (or no more): the group need not wait for it. Again: nothing. */
  done(): void;
}

export type GroupOutcome = { committed: true } | { committed: false; cause: unknown };

export class TransactionGroup {
  /** Members not yet done. */
  private waiting: number;
  private failure: { cause: unknown } | null = null;
  /** Every member done: committing or rolling back, then its connection given back to the pool. */
  private ended = false;
  private connection: Promise<{ client: pg.PoolClient; db: Transaction<Database> }> | null = null;
  private settle!: (outcome: GroupOutcome) => void;
  /** How the group ended: once every member is done, committed or not. */
  readonly outcome = new Promise<GroupOutcome>((resolve) => (this.settle = resolve));

  /** A group of `size` members: it ends once each of them is done. */
  constructor(
    private readonly store: Store,
    private readonly postgres: PostgresHandles,
    size: number,
  ) {
    this.waiting = size;
    if (size === 0) this.settle({ committed: true });
  }

  /** The members, one for each of the group's size: each must become done (see GroupMember). */
  members(): GroupMember[] {
    return Array.from({ length: this.waiting }, () => this.member());
  }

  private member(): GroupMember {
    let done = false;
    let ran = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (--this.waiting === 0) void this.end();
    };
    return {
      transaction: async (fn) => {
        if (ran || done) return this.store.transaction(fn);
        ran = true;
        const hooks: (() => void)[] = [];
        let result: Awaited<ReturnType<typeof fn>> | undefined;
        try {
          const { db } = await this.connect();
          const tx: Tx = {
            db,
            afterCommit: (hook) => hooks.push(hook),
            signals: this.store.signals,
            clock: this.store.clock,
            shared: true,
          };
          result = await fn(tx);
        } catch (err) {
          this.failure ??= { cause: err };
        } finally {
          finish();
        }
        const outcome = await this.outcome;
        if (!outcome.committed) throw new GroupFailed(outcome.cause);
        // As Store.transaction: once committed, in the member's own call (a hook that throws fails that call only).
        for (const hook of hooks) hook();
        return result!;
      },
      done: finish,
    };
  }

  /** The group's connection, its transaction begun (the `begin` goes with the first statement: named-statements.ts). */
  private connect() {
    this.connection ??= this.postgres.pool.connect().then((client) => {
      void client.query('begin');
      const connection = pinned(client, () => this.ended);
      const db = new Transaction<Database>({
        ...this.postgres.props,
        // Every statement goes to the connection at once: Kysely's own transaction waits for each answer before
        // it sends the next statement (its SingleConnectionProvider), which would make the members take turns.
        executor: this.store.db.getExecutor().withConnectionProvider({
          provideConnection: (consume) => consume(connection),
        }),
      });
      registerConnection(db, 'postgres');
      runDirectlyOnPostgres(db, connection);
      return { client, db };
    });
    return this.connection;
  }

  private async end(): Promise<void> {
    // From here on the connection carries only the commit or the rollback (sent to the client, not through `pinned`):
    // a statement a member left behind would run outside the transaction, and stay when it rolls back.
    this.ended = true;
    if (!this.connection)
      return this.settle(this.failure ? { committed: false, ...this.failure } : { committed: true });
    let client: pg.PoolClient | undefined;
    let broken: Error | undefined;
    let outcome: GroupOutcome;
    try {
      ({ client } = await this.connection);
      if (this.failure) throw this.failure.cause;
      await client.query('commit');
      outcome = { committed: true };
    } catch (err) {
      outcome = { committed: false, cause: this.failure?.cause ?? err };
      // A commit that failed ended the transaction; a rollback then only warns.
      if (client) await client.query('rollback').catch((e: Error) => (broken = e));
    } finally {
      // A connection that could not roll back is not given to anyone else.
      client?.release(broken);
    }
    this.settle(outcome);
  }
}

/**
 * Kysely's connection on one pool client, as its PostgreSQL driver answers (postgres-driver.js), until the group
 * `ended`: a statement a member left behind (a promise not awaited) must not run on a connection the pool has given
 * to someone else.
 */
function pinned(client: pg.PoolClient, ended: () => boolean): DatabaseConnection {
  return {
    async executeQuery<R>(query: { sql: string; parameters: readonly unknown[] }): Promise<QueryResult<R>> {
      if (ended()) throw new Error('a statement of a group of transactions that has ended');
      const { command, rowCount, rows } = await client.query(query.sql, [...query.parameters]);
      const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
      return { numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
    },
    streamQuery() {
      throw new Error('a group of transactions does not stream');
    },
  };
}
