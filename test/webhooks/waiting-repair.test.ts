// PostgreSQL: an event waits while an earlier event of its resource is pending (migration 028). It is made due when
// that one is given up (dead), in the same transaction; and one left waiting with no pending event before it (its
// predecessor left `pending` in a transaction that failed afterwards, or through an instance of a build before 028)
// is made due by the delivery loop's repair when a claim finds nothing due, and delivered.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/server.js';
import { idleServer } from '../support/idle-server.js';
import { useCleanups } from '../support/cleanups.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { claimEvents } from '../../server/webhooks/queue.js';

describe.runIf(ENGINES.includes('postgres'))('waiting webhook events (postgres)', () => {
  const cleanups = useCleanups();

  const setup = () => idleServer('postgres', cleanups, 'waiting');

  it('makes the next event of a resource due in the claim that gives up the one before it', async () => {
    const { store, services, account } = await setup();
    const enqueue = (path: string) =>
      store.transaction((tx) =>
        services.webhooks.enqueue(tx, {
          accountSid: account.sid,
          resourceSid: 'SM00000000000000000000000000000003',
          type: 'message.sent',
          url: `http://127.0.0.1:9/${path}`,
          data: {},
        }),
      );
    const first = await enqueue('first');
    const next = await enqueue('next');
    const claim = () =>
      claimEvents(store.db, 'postgres', { workerId: 'w', limit: 10, leaseMs: 1, now: Date.now(), maxClaims: 1 });
    // Claimed once (the next one waits behind it), then, its 1 ms lease run out, claimed a second time: given up.
    expect((await claim()).map((e) => [e.id, e.dead])).toEqual([[first, false]]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await claim()).map((e) => [e.id, e.dead])).toEqual([[first, true]]);
    // Due at once: the very next claim takes it (a claim that found nothing would have left it to the repair).
    expect((await claim()).map((e) => [e.id, e.dead])).toEqual([[next, false]]);
  });

  it('delivers an event left waiting with nothing pending before it', async () => {
    const { store, services, account } = await setup();
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    const id = await store.transaction((tx) =>
      services.webhooks.enqueue(tx, {
        accountSid: account.sid,
        resourceSid: 'SM00000000000000000000000000000002',
        type: 'message.sent',
        url: `${receiver.url}/left-waiting`,
        data: {},
      }),
    );
    // As a release that failed after its event left pending would leave the next one.
    await sql`update webhook_events set waiting = 1 where id = ${id}`.execute(store.db);

    const loop = services.webhooks.deliveryLoop({ workerId: 'w-waiting', pollMs: 10, leaseMs: 5000, maxClaims: 5 });
    loop.start();
    cleanups.push(() => loop.stop());
    await waitUntil(async () => receiver.received.some((r) => r.path === '/left-waiting'), 15_000, 'the event');
    // Recorded once the receiver's answer is back, just after it saw the request.
    const status = () =>
      store.db.selectFrom('webhook_events').select(['status']).where('id', '=', id).executeTakeFirstOrThrow();
    await waitUntil(async () => (await status()).status === 'delivered', 5_000, 'the delivery recorded');
    expect(receiver.received.filter((r) => r.path === '/left-waiting')).toHaveLength(1);
  });
});
