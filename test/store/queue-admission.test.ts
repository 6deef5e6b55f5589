// PostgreSQL's admission of a message to an account's queue (migration 022, roomInQueue): far from the quota a send
// does not wait for the account's sends in flight; near it, it waits for them to commit and counts them.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/db.js';
import { roomInQueue } from '../../server/messages/store.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

const ACCOUNT = 'ACqueueadmission';

describe.runIf(ENGINES.includes('postgres'))('admission to the queue of messages (postgres)', () => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  /** A store whose account has `queued` messages counted (the rows the triggers keep), and max_connections. */
  async function storeWith(queued: number): Promise<{ store: Store; connections: number }> {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await sql`insert into message_queue_counts (account_sid, stripe, queued) values (${ACCOUNT}, 3, ${queued})`.execute(
      store.db,
    );
    const { rows } = await sql<{ max_connections: string }>`show max_connections`.execute(store.db);
    return { store, connections: Number(rows[0].max_connections) };
  }

  /**
   * Transaction A is admitted and counts one more message (as the insert's trigger does), then stays open until
   * `commitA` is called; meanwhile transaction B asks. Returns B's answer and whether it came before A committed.
   */
  async function askWhileOneInFlight(store: Store, quota: number) {
    let commitA!: () => void;
    const aMayCommit = new Promise<void>((resolve) => (commitA = resolve));
    let aAdmitted!: () => void;
    const aIsIn = new Promise<void>((resolve) => (aAdmitted = resolve));
    const a = store.transaction(async (tx) => {
      expect(await roomInQueue(tx.db, 'postgres', ACCOUNT, quota)).toBe(true);
      await sql`insert into message_queue_counts (account_sid, stripe, queued) values (${ACCOUNT}, 7, 1)`.execute(
        tx.db,
      );
      aAdmitted();
      await aMayCommit;
    });
    await aIsIn;
    let answeredBeforeCommit = false;
    const b = store.transaction(async (tx) => {
      const room = await roomInQueue(tx.db, 'postgres', ACCOUNT, quota);
      answeredBeforeCommit = !aCommitted;
      return room;
    });
    let aCommitted = false;
    // B has had time to answer, or to wait for A, before A commits.
    await Promise.race([b, new Promise((resolve) => setTimeout(resolve, 500))]);
    aCommitted = true;
    commitA();
    await a;
    return { room: await b, answeredBeforeCommit };
  }

  it('near the quota, a send waits for the one in flight to commit, then counts it and is refused', async () => {
    const { store } = await storeWith(8);
    // Room for one: A takes it; B must not take it too.
    expect(await askWhileOneInFlight(store, 9)).toEqual({ room: false, answeredBeforeCommit: false });
  });

  it('near the quota, a send with room left after the one in flight is admitted once it commits', async () => {
    const { store } = await storeWith(8);
    expect(await askWhileOneInFlight(store, 10)).toEqual({ room: true, answeredBeforeCommit: false });
  });

  it('far from the quota (count plus max_connections within it), a send does not wait for one in flight', async () => {
    const { store, connections } = await storeWith(8);
    expect(await askWhileOneInFlight(store, 8 + 1 + connections)).toEqual({ room: true, answeredBeforeCommit: true });
  });
});
