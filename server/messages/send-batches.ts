// PostgreSQL: the API sends of this process written together. One statement is in flight at a time; the sends that
// arrive meanwhile wait, and the next statement writes all of them (at most MAX_BATCH) as soon as it ends. At a low
// rate each send goes alone at once; under load the sends share a round trip, an event-loop wake-up, a commit and its
// log flush, which is most of what a send costs (docs/performance.md, "Sends written together"). SQLite's sends are
// already gathered by its group commit (store/sqlite/group-commit.ts). A statement that waits (sends of an account
// near its quota wait for that account's sends in flight to commit) holds back the sends behind it, of every account.
import type { Store } from '../store/db.js';
import { sendBatch, type Send, type SendOutcome } from './store.js';

/** The most sends one statement writes: its arrays stay small, and a burst's first sends do not wait for its last. */
const MAX_BATCH = 64;

interface Waiting extends Send {
  settle: (outcome: SendOutcome) => void;
  fail: (err: unknown) => void;
}

export class SendBatches {
  private readonly waiting: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly store: Store,
    /** MAX_QUEUED_MESSAGES, the quota each send is admitted under. */
    private readonly quota: number,
  ) {}

  /** Writes the send (with the next statement); answers what became of it. A fault of the statement fails every send
   * it carried, and none of them is written. */
  send(send: Send): Promise<SendOutcome> {
    return new Promise((settle, fail) => {
      this.waiting.push({ ...send, settle, fail });
      if (!this.writing) void this.write();
    });
  }

  private async write(): Promise<void> {
    this.writing = true;
    while (this.waiting.length) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      try {
        const outcomes = await sendBatch(this.store.db, batch, this.quota);
        batch.forEach((send, i) => send.settle(outcomes[i]));
      } catch (err) {
        for (const send of batch) send.fail(err);
      }
    }
    this.writing = false;
  }
}
