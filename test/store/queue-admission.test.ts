// PostgreSQL's admission of a message to an account's queue (migration 022, roomInQueue): far from the quota a send
// does not wait for the account's sends in flight; near it, it waits for them to commit and counts them. Several sends
// of one account in one statement (migration 031, sendBatch) always wait for them.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/db.js';
import { roomInQueue, sendBatch } from '../../server/messages/store.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { holdNumber } from '../support/numbers.js';
import { apiSend } from '../support/messaging.js';

const ACCOUNT = 'ACqueueadmission';
const FROM = '+14155550101';

/** Counts `queued` more messages of the account on a row of `stripe`, as the inserts' trigger does. */
const count = (db: Store['db'], stripe: number, queued: number) =>
  sql`insert into message_queue_counts (account_sid, stripe, queued) values (${ACCOUNT}, ${stripe}, ${queued})`.execute(
    db,
  );

describe.runIf(ENGINES.includes('postgres'))('admission to the queue of messages (postgres)', () => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  /** A store whose account has `queued` messages counted (the rows the triggers keep), and max_connections. */
  async function storeWith(queued: number) {
    const db = freshDatabase('postgres');
    dispose = () => db.dispose();
    const store = await db.open();
    await count(store.db, 98, queued);
    const { rows } = await sql<{ max_connections: string }>`show max_connections`.execute(store.db);
    return { store, connections: Number(rows[0].max_connections), connect: () => db.connect() };
  }

  /** Transaction B: whether the account has room for one more message. */
  const room = (store: Store, quota: number) => () =>
    store.transaction((tx) => roomInQueue(tx.db, 'postgres', ACCOUNT, quota));

  /**
   * Transaction A is admitted and counts `adds` more messages (as the inserts' trigger does; one alone, as a send
   * does, or several under the account's exclusive lock, as a statement of several sends does), then stays open
   * until `commitA` is called; meanwhile B asks (`ask`). Returns B's answer and whether it came before A committed.
   */
  async function askWhileOneInFlight<T>(store: Store, quota: number, ask: () => Promise<T>, adds = 1) {
    let commitA!: () => void;
    const aMayCommit = new Promise<void>((resolve) => (commitA = resolve));
    let aAdmitted!: () => void;
    const aIsIn = new Promise<void>((resolve) => (aAdmitted = resolve));
    const a = store.transaction(async (tx) => {
      if (adds === 1) expect(await roomInQueue(tx.db, 'postgres', ACCOUNT, quota)).toBe(true);
      else {
        const { rows } = await sql<{ admitted: number }>`
          select admitted from message_queue_admit_many(array[${ACCOUNT}], array[${adds}::integer], ${quota})`.execute(
          tx.db,
        );
        expect(rows).toEqual([{ admitted: adds }]);
      }
      // A stripe no connection counts on (1 to 32), so that only the admission's lock can make B wait for A.
      await count(tx.db, 99, adds);
      aAdmitted();
      await aMayCommit;
    });
    await aIsIn;
    let answeredBeforeCommit = false;
    const b = ask().then((answer) => {
      answeredBeforeCommit = !aCommitted;
      return answer;
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
    expect(await askWhileOneInFlight(store, 9, room(store, 9))).toEqual({ room: false, answeredBeforeCommit: false });
  });

  it('near the quota, a send with room left after the one in flight is admitted once it commits', async () => {
    const { store } = await storeWith(8);
    expect(await askWhileOneInFlight(store, 10, room(store, 10))).toEqual({ room: true, answeredBeforeCommit: false });
  });

  it('far from the quota (count plus max_connections within it), a send does not wait for one in flight', async () => {
    const { store, connections } = await storeWith(8);
    expect(await askWhileOneInFlight(store, 8 + 1 + connections, room(store, 8 + 1 + connections))).toEqual({
      room: true,
      answeredBeforeCommit: true,
    });
  });

  it('several sends of the account in one statement wait for the one in flight, even far from the quota', async () => {
    const { store, connections } = await storeWith(8);
    await holdNumber(store, ACCOUNT, FROM);
    const sends = [apiSend(ACCOUNT, FROM), apiSend(ACCOUNT, FROM), apiSend(ACCOUNT, FROM)];
    // Far from the quota, as one send alone counts it: the statement waits all the same, and is admitted whole.
    const far = 8 + 1 + 3 + connections;
    expect(await askWhileOneInFlight(store, far, () => sendBatch(store.db, sends, far))).toEqual({
      room: ['sent', 'sent', 'sent'],
      answeredBeforeCommit: false,
    });
  });

  it('near the quota, several sends of the account in one statement are admitted as far as the room left', async () => {
    const { store } = await storeWith(8);
    await holdNumber(store, ACCOUNT, FROM);
    const sends = [apiSend(ACCOUNT, FROM), apiSend(ACCOUNT, FROM), apiSend(ACCOUNT, FROM)];
    // Room for three: the one in flight takes one, the statement two.
    expect(await askWhileOneInFlight(store, 11, () => sendBatch(store.db, sends, 11))).toEqual({
      room: ['sent', 'sent', 'message_queue_full'],
      answeredBeforeCommit: false,
    });
  });

  it('a send far from the quota behind several sends of the account in flight is admitted with room left', async () => {
    const { store, connections } = await storeWith(8);
    // Far from the quota when B asks (8 + max_connections within it); 11 after A's three: no longer far, but room.
    const quota = 8 + connections + 2;
    expect(await askWhileOneInFlight(store, quota, room(store, quota), 3)).toEqual({
      room: true,
      answeredBeforeCommit: false,
    });
  });

  it('a send whose count passes "far from the quota" between its read and its lock is counted exactly', async () => {
    const { connections, connect } = await storeWith(0);
    // One connection moves the count between far (a send's first read) and not far, but with room (its read under
    // the shared lock), committing each time; four others ask, as fast as they can. The count never reaches the quota.
    const quota = 10 * connections;
    const [far, near] = [quota - connections - 50, quota - connections + 50];
    const clients = await Promise.all(Array.from({ length: 5 }, connect));
    const [mover, ...askers] = clients;
    try {
      await mover.query('insert into message_queue_counts (account_sid, stripe, queued) values ($1, 97, $2)', [
        ACCOUNT,
        far,
      ]);
      const until = Date.now() + 1500;
      const moving = (async () => {
        while (Date.now() < until)
          await mover.query(
            `update message_queue_counts set queued = case when queued = $2::bigint then $3::bigint else $2::bigint end
             where account_sid = $1 and stripe = 97`,
            [ACCOUNT, far, near],
          );
      })();
      const answers = { admitted: 0, refused: 0 };
      await Promise.all(
        askers.map(async (client) => {
          while (Date.now() < until) {
            const { rows } = await client.query('select message_queue_admit($1, $2) as room', [ACCOUNT, quota]);
            answers[rows[0].room ? 'admitted' : 'refused']++;
          }
        }),
      );
      await moving;
      // The askers ran (a loaded machine makes fewer calls in the time).
      expect(answers.admitted).toBeGreaterThan(100);
      expect(answers.refused).toBe(0);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });
});
