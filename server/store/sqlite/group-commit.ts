// SQLite group commit: transactions that arrive while one is running join one physical transaction, each
// inside its own savepoint (so each still commits or rolls back as a whole), and share its single COMMIT.
// SQLite runs one transaction at a time anyway; what this saves is the per-commit write of the WAL.
import type { EventEmitter } from 'node:events';
import type SQLite from 'better-sqlite3';
import type { Db, Tx } from '../db.js';
import { registerConnection, runDirectly } from './prepared.js';
import type { Clock } from '../../clock.js';

/**
 * Whether the writer's statements are refused: while a group gives the event loop a turn, its transaction still open,
 * none of its transactions runs, so a statement then was left behind by one that has ended (a timer, a promise not
 * awaited) and would be committed with the group, outside any savepoint. Nothing else can reach the connection then
 * (Kysely holds it for the group; `between` work waits for the group's end). Kysely refused such a statement once the
 * group had committed, as it still does.
 */
export interface StatementGate {
  refusing: boolean;
}

export const ENDED_TRANSACTION = 'a statement of a transaction that has already ended';

interface Pending {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** At most this many transactions share one commit, so none waits long behind a burst. */
const MAX_GROUP = 128;
/**
 * A group gives the event loop a turn after running this long (real time), its physical transaction still open: its
 * transactions run without a turn between them (SQLite answers at once), so this bounds how late it makes a request
 * or a timer. The transactions those start join the group. (Until 2026-11-29 a group committed at this bound, which
 * made three times as many commits as groups bounded by their size alone: see docs/performance.md.)
 */
const SLICE_MS = 4;
/**
 * A group open this long (real time, its turns given away included) commits after its next turn: about the bound of
 * how long a transaction's caller waits for its commit behind the transactions before it (plus a slice and the turns
 * themselves, which run whatever callbacks are due).
 */
const MAX_OPEN_MS = 12;

export class GroupCommit {
  private readonly queue: Pending[] = [];
  /** Work for the connection outside any transaction (see `between`). */
  private readonly betweenGroups: (() => void)[] = [];
  private running = false;
  /** The savepoint statements every grouped transaction runs, compiled once (SQLite compiles at each prepare). */
  private readonly savepoint: { open: SQLite.Statement; release: SQLite.Statement; undo: SQLite.Statement };

  constructor(
    private readonly db: Db,
    /** The file the transactions run on directly while the group owns the connection (see runDirectly). */
    private readonly file: SQLite.Database,
    private readonly signals: EventEmitter,
    private readonly clock: Clock,
    private readonly gate: StatementGate,
  ) {
    this.savepoint = {
      open: file.prepare('savepoint grouped'),
      release: file.prepare('release savepoint grouped'),
      undo: file.prepare('rollback to savepoint grouped'),
    };
  }

  run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Runs `fn` on the connection while no transaction is open on it: at once when idle, else before the next group. */
  between(fn: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const run = () => {
        try {
          fn();
          resolve();
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      };
      if (this.running) this.betweenGroups.push(run);
      else run();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      // Let the transactions that are ready in this turn of the event loop join the first group.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length || this.betweenGroups.length) {
        for (const run of this.betweenGroups.splice(0)) run();
        if (this.queue.length) await this.group();
        // The next group waits for the event loop's turn: requests and timers go between two groups.
        if (this.queue.length) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.running = false;
    }
  }

  private async group(): Promise<void> {
    const done: { item: Pending; result: unknown; hooks: (() => void)[] }[] = [];
    let trx;
    try {
      trx = await this.db.startTransaction().execute();
      registerConnection(trx, 'sqlite');
      runDirectly(trx, this.file);
    } catch (err) {
      for (const item of this.queue.splice(0)) item.reject(err);
      return;
    }
    let current: Pending | null = null;
    try {
      const opened = performance.now();
      let slice = opened;
      for (let n = 0; n < MAX_GROUP && this.queue.length; n++) {
        if (performance.now() - slice >= SLICE_MS) {
          // The event loop's turn, the group still open: requests and timers run, and their transactions join it.
          this.gate.refusing = true;
          try {
            await new Promise((resolve) => setImmediate(resolve));
          } finally {
            this.gate.refusing = false;
          }
          slice = performance.now();
          if (!this.queue.length || slice - opened >= MAX_OPEN_MS) break;
        }
        const item = (current = this.queue.shift()!);
        const hooks: (() => void)[] = [];
        this.savepoint.open.run();
        try {
          const result = await item.fn({
            db: trx,
            afterCommit: (hook) => hooks.push(hook),
            signals: this.signals,
            clock: this.clock,
          });
          this.savepoint.release.run();
          done.push({ item, result, hooks });
        } catch (err) {
          this.savepoint.undo.run();
          this.savepoint.release.run();
          item.reject(err);
        }
        current = null;
      }
      runDirectly(trx, null);
      await trx.commit().execute();
    } catch (err) {
      // The physical transaction failed: none of the group is committed.
      runDirectly(trx, null);
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      current?.reject(err);
      for (const { item } of done) item.reject(err);
      return;
    }
    for (const { item, result, hooks } of done) {
      for (const hook of hooks) hook();
      item.resolve(result);
    }
  }
}
