// A savepoint inside a caller's transaction: what a step wrote is undone when it throws, and the transaction goes on
// (on PostgreSQL a failed statement aborts the whole transaction otherwise). Its three statements are compiled once
// per name.
import { sql } from 'kysely';
import type { Tx } from './db.js';
import { prepared } from './sqlite/prepared.js';

const statement = (text: string) => prepared((db) => ({ compile: () => sql.raw(text).compile(db) }));

export class Savepoint {
  private readonly open;
  private readonly release;
  private readonly rollback;

  /** `name` is an SQL identifier written by us, never input. */
  constructor(name: string) {
    this.open = statement(`savepoint ${name}`);
    this.release = statement(`release savepoint ${name}`);
    this.rollback = statement(`rollback to savepoint ${name}`);
  }

  /** Runs `run` in `tx` under the savepoint: when it throws, its writes are undone and the error is thrown again. */
  async undoneOnThrow<T>(tx: Tx, run: (tx: Tx) => Promise<T>): Promise<T> {
    let result: T | undefined;
    const failed = await this.errorOf(tx, async (step) => void (result = await run(step)));
    if (failed) throw failed.err;
    return result as T;
  }

  /**
   * Runs `run` in `tx` under the savepoint and answers what it threw, its writes undone (undefined when it did not
   * throw). A failure of the savepoint's own statements is thrown, never answered: on PostgreSQL it leaves the
   * transaction aborted, which the caller must not take for the step's refusal and commit past.
   */
  async errorOf(tx: Tx, run: (tx: Tx) => Promise<unknown>): Promise<{ err: unknown } | undefined> {
    if (tx.shared) throw new Error('a savepoint in a group of transactions: each runs again alone');
    await this.open.run(tx.db);
    let failed: { err: unknown } | undefined;
    try {
      await run(tx);
    } catch (err) {
      failed = { err };
    }
    if (failed) await this.rollback.run(tx.db);
    await this.release.run(tx.db);
    return failed;
  }
}
