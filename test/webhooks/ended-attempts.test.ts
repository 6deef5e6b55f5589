// PostgreSQL: the attempts that end in one turn are recorded by one statement (EndedAttempts, migration 028's
// webhook_events_release_all), which releases events of several resources. A transaction that holds one of those
// events `for share` and then wants another (a group of job transactions inserting the next events of several
// messages) can deadlock with it; PostgreSQL then ends one of them. When the statement is the one ended, it is
// written again, and its attempts are recorded, instead of failing and leaving their events leased.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { EndedAttempts } from '../../server/webhooks/ended-attempts.js';
import { claimEvents, type EndedAttempt } from '../../server/webhooks/queue.js';
import { ENGINES } from '../support/server.js';
import { idleServer } from '../support/idle-server.js';
import { useCleanups } from '../support/cleanups.js';
import { waitUntil } from '../support/wait.js';

describe.runIf(ENGINES.includes('postgres'))('attempts recorded together (postgres)', () => {
  const cleanups = useCleanups();

  it('records the attempts of a turn even when their statement is ended by a deadlock', async () => {
    const { db, store, services, account } = await idleServer('postgres', cleanups, 'ended');
    const enqueue = (resource: string) =>
      store.transaction((tx) =>
        services.webhooks.enqueue(tx, {
          accountSid: account.sid,
          resourceSid: resource,
          type: 'message.sent',
          url: 'http://127.0.0.1:9/cb',
          data: {},
        }),
      );
    const first = await enqueue('SM00000000000000000000000000000001');
    const second = await enqueue('SM00000000000000000000000000000002');
    const claimed = await claimEvents(store.db, 'postgres', {
      workerId: 'w',
      limit: 10,
      leaseMs: 60_000,
      now: Date.now(),
    });
    expect(claimed.map((e) => e.id).sort()).toEqual([first, second].sort());

    const other = await db.connect();
    cleanups.push(() => other.end());
    // The other transaction holds the first event, as a group inserting that message's next event does.
    await other.query('begin');
    await other.query('select id from webhook_events where id = $1 for share', [first]);
    const otherXid = (await other.query('select pg_current_xact_id()::text as xid')).rows[0].xid as string;

    const now = new Date().toISOString();
    const ended = (id: string): EndedAttempt => ({
      id,
      workerId: 'w',
      outcome: { attempts: 1, status: 'delivered', runAt: now, now },
      attempt: { event_id: id, attempt: 1, date_attempted: now, duration_ms: 3, response_status: 200, error: null },
    });
    const attempts = new EndedAttempts(store.db);
    // One turn, the second event first: the statement updates it, then waits for the first.
    const recorded = Promise.all([attempts.record(ended(second)), attempts.record(ended(first))]);
    // Until the statement waits for the other transaction (a fixed pause was too short on a loaded machine). Read
    // outside that transaction, which would see one snapshot of pg_locks to its end.
    await waitUntil(async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::integer as n from pg_locks
        where locktype = 'transactionid' and not granted and transactionid = ${otherXid}::xid`.execute(store.db);
      return rows[0].n === 1;
    });
    // The other transaction now wants the second: each waits for the other, and PostgreSQL ends the statement (the
    // first to wait, so the first to look for a deadlock). Its retry waits for this commit.
    await other.query('select id from webhook_events where id = $1 for share', [second]);
    await other.query('commit');

    expect(await recorded).toEqual([true, true]);
    const rows = await sql<{ id: string; status: string; locked_by: string | null }>`
      select id, status, locked_by from webhook_events order by id`.execute(store.db);
    expect(rows.rows).toEqual([first, second].sort().map((id) => ({ id, status: 'delivered', locked_by: null })));
    const { rows: recordedAttempts } = await sql<{ n: number }>`
      select count(*)::integer as n from webhook_attempts`.execute(store.db);
    expect(recordedAttempts).toEqual([{ n: 2 }]);
  });
});
