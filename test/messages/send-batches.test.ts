// PostgreSQL: the API sends written together (messages/send-batches.ts, sendBatch in messages/store.ts). Each send of
// a statement has its own answer and is written whole or not at all; the sends that arrive while a statement is in
// flight go in the next one; a statement's fault fails every send it carried and writes none of them.
import pg from 'pg';
import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db, Store } from '../../server/store/db.js';
import { sendBatch } from '../../server/messages/store.js';
import { SendBatches } from '../../server/messages/send-batches.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { holdNumber } from '../support/numbers.js';
import { apiSend as send } from '../support/messaging.js';

const MINE = '+14155550101';
const THEIRS = '+14155550102';

/** The messages written, with the transaction that wrote each (its xmin), in the order of their sids. */
async function written(store: Store) {
  const { rows } = await sql<{ sid: string; xmin: string }>`select sid, xmin::text from messages order by sid`.execute(
    store.db,
  );
  return rows;
}

/** The sids of the dispatch jobs written, in the order of their ids (the order jobs of one ordering key run in). */
async function jobSids(store: Store) {
  const jobs = await store.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', 'message.dispatch')
    .orderBy('id')
    .execute();
  return jobs.map((job) => (JSON.parse(job.payload) as { sid: string }).sid);
}

describe.runIf(ENGINES.includes('postgres'))('API sends written together (postgres)', () => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  let database: ReturnType<typeof freshDatabase>;

  async function store(): Promise<Store> {
    const db = freshDatabase('postgres');
    database = db;
    dispose = () => db.dispose();
    const opened = await db.open();
    await holdNumber(opened, 'ACbatchmine', MINE);
    await holdNumber(opened, 'ACbatchtheirs', THEIRS);
    return opened;
  }

  it('answers each send of a statement on its own, in order, and writes those admitted, jobs in order', async () => {
    const s = await store();
    const sends = [
      send('ACbatchmine', MINE),
      send('ACbatchtheirs', MINE),
      send('ACbatchmine', MINE),
      send('ACbatchmine', MINE),
      send('ACbatchtheirs', THEIRS),
    ];
    // A quota of two: the account's third send in the statement is refused, the other account's counts on its own.
    expect(await sendBatch(s.db, sends, 2)).toEqual([
      'sent',
      'from_number_not_owned',
      'sent',
      'message_queue_full',
      'sent',
    ]);
    const admitted = [sends[0], sends[2], sends[4]].map((one) => one.message.sid);
    const rows = await written(s);
    expect(rows.map((row) => row.sid)).toEqual(admitted);
    expect(new Set(rows.map((row) => row.xmin)).size).toBe(1);
    expect(await jobSids(s)).toEqual(admitted);
  });

  it('writes the sends that arrive while a statement is in flight together, in the next statement', async () => {
    const s = await store();
    const batches = new SendBatches(s, 100);
    const sends = Array.from({ length: 10 }, () => send('ACbatchmine', MINE));
    expect(await Promise.all(sends.map((one) => batches.send(one)))).toEqual(Array(10).fill('sent'));
    const rows = await written(s);
    expect(rows.map((row) => row.sid)).toEqual(sends.map((one) => one.message.sid));
    // The first went alone at once; the nine sent while it was in flight went in one transaction after it.
    expect(rows.slice(1).every((row) => row.xmin === rows[1].xmin)).toBe(true);
    expect(rows[0].xmin).not.toBe(rows[1].xmin);
    expect(await jobSids(s)).toEqual(sends.map((one) => one.message.sid));
  });

  it('fails every send of a statement that fails, and writes none of them', async () => {
    const s = await store();
    const batches = new SendBatches(s, 100);
    const first = send('ACbatchmine', MINE);
    expect(await batches.send(first)).toBe('sent');
    const [blocker, fine, again] = [
      send('ACbatchmine', MINE),
      send('ACbatchmine', MINE),
      send('ACbatchmine', MINE, first.message.sid),
    ];
    // The blocker goes alone; the two sent while it is in flight share a statement, which the duplicate sid fails.
    const outcomes = await Promise.allSettled([blocker, fine, again].map((one) => batches.send(one)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    const [, second, third] = outcomes as PromiseRejectedResult[];
    expect(second.reason).toBe(third.reason);
    expect(second.reason).toMatchObject({ code: '23505' });
    expect((await written(s)).map((row) => row.sid)).toEqual([first.message.sid, blocker.message.sid]);
    expect(await jobSids(s)).toEqual([first.message.sid, blocker.message.sid]);
  });

  it('two statements on connections of one count stripe, with accounts in opposite orders, both write', async () => {
    const s = await store();
    await holdNumber(s, 'ACbatchthird', '+14155550103');
    const connections: pg.Client[] = [];
    try {
      // Connections until two count on one stripe (1 + backend pid % 32, migration 022), and one more.
      const byStripe = new Map<number, pg.Client>();
      let pair: [pg.Client, pg.Client] | undefined;
      let stripe = 0;
      while (!pair) {
        const client = await database.connect();
        connections.push(client);
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        stripe = 1 + (rows[0].pid % 32);
        const other = byStripe.get(stripe);
        if (other) pair = [other, client];
        else byStripe.set(stripe, client);
      }
      const holder = connections.find((client) => !pair.includes(client))!;
      // The holder keeps the third account's count row of that stripe while both statements reach it. Inserted in
      // their sends' order, the first would hold mine's row and the second theirs', and each would then wait for
      // the other's.
      await holder.query('begin');
      await holder.query('insert into message_queue_counts (account_sid, stripe, queued) values ($1, $2, 0)', [
        'ACbatchthird',
        stripe,
      ]);
      const on = (client: pg.Client) =>
        ({
          executeQuery: async (query: CompiledQuery) => client.query(query.sql, [...query.parameters]),
        }) as unknown as Db;
      const first = sendBatch(
        on(pair[0]),
        [send('ACbatchmine', MINE), send('ACbatchthird', '+14155550103'), send('ACbatchtheirs', THEIRS)],
        100,
      );
      const second = sendBatch(
        on(pair[1]),
        [send('ACbatchtheirs', THEIRS), send('ACbatchthird', '+14155550103'), send('ACbatchmine', MINE)],
        100,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query('commit');
      expect(await Promise.all([first, second])).toEqual([Array(3).fill('sent'), Array(3).fill('sent')]);
      expect((await written(s)).length).toBe(6);
    } finally {
      await Promise.all(connections.map((client) => client.end()));
    }
  });
});
