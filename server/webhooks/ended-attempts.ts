// PostgreSQL: the attempts that end in one turn of the event loop (the sender thread answers in batches) are recorded
// together, in one statement and one commit instead of one each (see releaseRecordingAttempts).
import { DEADLOCK_TRIES, isDeadlock, type Db } from '../store/db.js';
import { releaseRecordingAttempts, type EndedAttempt } from './queue.js';

interface Waiting {
  ended: EndedAttempt;
  resolve: (released: boolean) => void;
  reject: (err: unknown) => void;
}

export class EndedAttempts {
  private batch: Waiting[] = [];

  constructor(private readonly db: Db) {}

  /** Records the attempt with the others of this turn: false when its event's lease was lost (nothing written). */
  record(ended: EndedAttempt): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (this.batch.length === 0) setImmediate(() => void this.flush());
      this.batch.push({ ended, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    const ended = batch.map((w) => w.ended);
    try {
      let released: Set<string>;
      for (let tries = 1; ; tries++) {
        try {
          released = await releaseRecordingAttempts(this.db, ended);
          break;
        } catch (err) {
          // The statement is its own transaction, rolled back whole by a deadlock: written again. One is possible
          // against a group of job transactions (store/transaction-group.ts), which holds the oldest pending event of
          // several resources `for share` while inserting their next events; this statement releases events of
          // several resources too. Left failed, the attempts' events would stay leased until JOB_LEASE_MS.
          if (!isDeadlock(err) || tries === DEADLOCK_TRIES) throw err;
        }
      }
      for (const w of batch) w.resolve(released.has(w.ended.id));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
