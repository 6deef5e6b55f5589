// send_at scheduling, cancellation by DELETE, validity_period expiry and per-number pacing; all survive a restart.
// Time to send_at passes on the server's TestClock; the pacing test alone runs in real time (the rate is the point).
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber, giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { TestClock } from '../support/clock.js';

const HOUR_MS = 3_600_000;

describe.each(ENGINES)('scheduling and validity (%s)', (engine) => {
  // Pacing of 2 messages per second per number, so validity can run out in the queue.
  const clock = new TestClock();
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, SANDBOX_MESSAGES_PER_SECOND: '2' }, clock });
  let account: TestAccount;
  let from: string;
  const receiver = useReceiver();
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));
  /** The server's time `ms` from now. */
  const inMs = (ms: number) => new Date(clock.now() + ms).toISOString();

  it('keeps a scheduled message queued with date_sent null until send_at, then sends it', async () => {
    const sendAt = inMs(HOUR_MS);
    const body = { from: await uniqueFrom(), to: '+14155550123', body: 'later', send_at: sendAt };
    const { data } = await account.client.POST('/v1/messages', { body });
    expect(data).toMatchObject({ status: 'queued', send_at: sendAt, date_sent: null });
    // A minute before send_at, a message sent now goes through the same worker while the scheduled one waits.
    clock.advance(HOUR_MS - 60_000);
    const now = await account.client.POST('/v1/messages', { body: { from, to: '+14155550123', body: 'now' } });
    await waitForStatus(account.client, now.data!.sid, 'delivered');
    const { data: waiting } = await account.client.GET('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } });
    expect(waiting).toMatchObject({ status: 'queued', date_sent: null });
    clock.advance(60_000);
    const delivered = await waitForStatus(account.client, data!.sid, 'delivered');
    expect(Date.parse(delivered.date_sent!)).toBeGreaterThanOrEqual(Date.parse(sendAt));
  });

  it('carries a message from its dispatch through the sandbox network’s reports on one job row', async () => {
    // Scheduled, so its dispatch job can be seen before it runs; slow delivery keeps it on the network for a while.
    const body = { from: await uniqueFrom(), to: '+15005550004', body: 'one row', send_at: inMs(HOUR_MS) };
    const { data } = await account.client.POST('/v1/messages', { body });
    const jobsOf = (sid: string) =>
      t.server.services.store.db
        .selectFrom('jobs')
        .select(['id', 'kind'])
        .where('payload', 'like', `%${sid}%`)
        .execute();
    const [dispatch, ...others] = await jobsOf(data!.sid);
    expect(others).toEqual([]);
    expect(dispatch.kind).toBe('message.dispatch');
    clock.advance(HOUR_MS);
    await waitForStatus(account.client, data!.sid, 'sent');
    expect(await jobsOf(data!.sid)).toEqual([{ id: dispatch.id, kind: 'sandbox.message' }]);
    await waitForStatus(account.client, data!.sid, 'delivered');
    await waitUntil(async () => (await jobsOf(data!.sid)).length === 0);
  });

  it('runs a sandbox network job enqueued by an earlier version, its payload the whole message', async () => {
    // A scheduled message whose dispatch job is turned into the network's job as versions before 2026-11-26 wrote
    // it; the copy delivered to the account's own number carries the payload's body, so the payload is what ran.
    const to = await uniqueFrom();
    const body = { from: await uniqueFrom(), to, body: 'in the row', send_at: inMs(HOUR_MS) };
    const { data } = await account.client.POST('/v1/messages', { body });
    const db = t.server.services.store.db;
    const [dispatch] = await db.selectFrom('jobs').select('id').where('payload', 'like', `%${data!.sid}%`).execute();
    await db.updateTable('messages').set({ status: 'sending' }).where('sid', '=', data!.sid).execute();
    const message = {
      sid: data!.sid,
      accountSid: account.sid,
      from: body.from,
      to,
      body: 'in the payload',
      mediaUrls: [],
      channel: 'sms',
      numSegments: 1,
      validUntil: inMs(2 * HOUR_MS),
    };
    await db
      .updateTable('jobs')
      .set({ kind: 'sandbox.message', payload: JSON.stringify({ message, index: 0 }), run_at: inMs(0) })
      .where('id', '=', dispatch.id)
      .execute();
    await waitForStatus(account.client, data!.sid, 'delivered');
    const inbound = await waitUntil(async () => {
      const { data: list } = await account.client.GET('/v1/messages', { params: { query: { to } } });
      return list!.data.find((m) => m.direction === 'inbound');
    });
    expect(inbound).toMatchObject({ from: body.from, body: 'in the payload' });
  });

  it('sends a scheduled message after a restart', async () => {
    const sendAt = inMs(HOUR_MS);
    const body = { from: await uniqueFrom(), to: '+14155550123', body: 'after restart', send_at: sendAt };
    const { data } = await account.client.POST('/v1/messages', { body });
    await t.restart();
    clock.advance(HOUR_MS);
    const delivered = await waitForStatus(account.client, data!.sid, 'delivered');
    expect(Date.parse(delivered.date_sent!)).toBeGreaterThanOrEqual(Date.parse(sendAt));
  });

  it('cancels a scheduled message deleted before its time: canceled, reported, never sent', async () => {
    const { data } = await account.client.POST('/v1/messages', {
      body: {
        from: await uniqueFrom(),
        to: '+14155550123',
        body: 'never',
        send_at: inMs(HOUR_MS),
        status_callback: receiver.url,
      },
    });
    const { response } = await account.client.DELETE('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } });
    expect(response.status).toBe(204);
    const { data: canceled } = await account.client.GET('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } });
    expect(canceled).toMatchObject({ status: 'canceled', date_sent: null, price: null });
    await receiver.waitFor((r) => r.some((w) => w.json.data.sid === data!.sid));
    // Past send_at, its dispatch job runs and ends without sending (the job row goes) and records no event.
    clock.advance(HOUR_MS);
    const db = t.server.services.store.db;
    const job = () => db.selectFrom('jobs').select('id').where('payload', 'like', `%${data!.sid}%`).executeTakeFirst();
    await waitUntil(async () => !(await job()), 20_000, 'the dispatch job to end');
    const events = await db.selectFrom('webhook_events').select('type').where('resource_sid', '=', data!.sid).execute();
    expect(events).toEqual([{ type: 'message.canceled' }]);
    const { data: later } = await account.client.GET('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } });
    expect(later!.status).toBe('canceled');
    expect(receiver.received.filter((w) => w.json.data.sid === data!.sid).map((w) => w.json.type)).toEqual([
      'message.canceled',
    ]);
    // A canceled message is final: deleting it again removes it.
    expect(
      (await account.client.DELETE('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } })).response.status,
    ).toBe(204);
    expect(
      (await account.client.GET('/v1/messages/{sid}', { params: { path: { sid: data!.sid } } })).response.status,
    ).toBe(404);
  });

  it('paces one number and fails what cannot be sent within validity_period with validity_period_expired', async () => {
    const paced = await uniqueFrom();
    // At 2 per second, the 8th message's slot is 3.5 s after the first's: beyond the 2 s validity of the last ones.
    // Sent at once, so that a slow machine cannot spread the sends until every slot is within validity.
    const sent = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        account.client.POST('/v1/messages', {
          body: { from: paced, to: '+14155550123', body: `burst ${i}`, validity_period: 2 },
        }),
      ),
    );
    const finals = [];
    for (const { data } of sent) finals.push(await waitForStatusIn(account, data!.sid, ['delivered', 'failed']));
    const delivered = finals.filter((m) => m.status === 'delivered');
    const failed = finals.filter((m) => m.status === 'failed');
    expect(delivered.length).toBeGreaterThanOrEqual(2);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(delivered.every((m) => m.error_code === null)).toBe(true);
    for (const m of failed) {
      expect(m).toMatchObject({ error_code: 'validity_period_expired', date_sent: null, price: null });
    }
    // The k-th slot is k × 500 ms after the first, which is no earlier than the first message's creation; a send
    // never runs before its slot (it may run after it on a busy machine, so the gaps between sends can be shorter).
    const first = Math.min(...finals.map((m) => Date.parse(m.date_created)));
    const times = delivered.map((m) => Date.parse(m.date_sent!)).sort((a, b) => a - b);
    times.forEach((time, k) => expect(time - first).toBeGreaterThanOrEqual(k * 500));
  });

  it('counts validity_period from send_at for a scheduled message', async () => {
    const body = {
      from: await uniqueFrom(),
      to: '+14155550123',
      body: 'scheduled',
      send_at: inMs(HOUR_MS),
      validity_period: 1,
    };
    const { data } = await account.client.POST('/v1/messages', { body });
    clock.advance(HOUR_MS);
    const delivered = await waitForStatus(account.client, data!.sid, 'delivered');
    expect(delivered.error_code).toBeNull();
  });

  it('fails a scheduled message whose number its account released, though another account holds it now', async () => {
    const released = await uniqueFrom();
    const { data } = await account.client.POST('/v1/messages', {
      body: {
        from: released,
        to: '+14155550123',
        body: 'not from B',
        send_at: inMs(HOUR_MS),
        status_callback: receiver.url,
      },
    });
    await release(released);
    const other = await t.newAccount();
    const taken = await other.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: released } });
    expect(taken.response.status).toBe(201);
    clock.advance(HOUR_MS);
    const failed = await waitForStatusIn(account, data!.sid, ['failed', 'sending', 'sent', 'delivered']);
    expect(failed).toMatchObject({
      status: 'failed',
      error_code: 'from_number_released',
      date_sent: null,
      price: null,
    });
    expect(failed.error_message).toContain(released);
    await receiver.waitFor((r) => r.some((w) => w.json.data.sid === data!.sid));
    const db = t.server.services.store.db;
    const events = await db.selectFrom('webhook_events').select('type').where('resource_sid', '=', data!.sid).execute();
    expect(events).toEqual([{ type: 'message.failed' }]);
    // Nothing went out from the number, which took no send slot for it: its slots are its new holder's.
    const slots = await db.selectFrom('carrier_send_slots').selectAll().where('from_number', '=', released).execute();
    expect(slots).toEqual([]);
  });

  it('fails the messages still waiting for their send slot when their number is released', async () => {
    const paced = await uniqueFrom();
    // At 2 per second, eight messages at once take 3.5 s of slots: the later ones still wait when the number goes.
    const sent = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        account.client.POST('/v1/messages', { body: { from: paced, to: '+14155550123', body: `queued ${i}` } }),
      ),
    );
    await release(paced);
    const finals = [];
    for (const { data } of sent) finals.push(await waitForStatusIn(account, data!.sid, ['delivered', 'failed']));
    const failed = finals.filter((m) => m.status === 'failed');
    // The last three slots are 2.5 s and more after the first: the release comes before them, even on a busy machine.
    expect(failed.length).toBeGreaterThanOrEqual(3);
    for (const m of failed) expect(m).toMatchObject({ error_code: 'from_number_released', date_sent: null });
    for (const m of finals.filter((m) => m.status === 'delivered')) expect(m.error_code).toBeNull();
  });

  it('fails them at the release: none goes out when the account takes the number back, no slot is kept', async () => {
    const number = await uniqueFrom();
    const later = await account.client.POST('/v1/messages', {
      body: { from: number, to: '+14155550123', body: 'later', send_at: inMs(HOUR_MS) },
    });
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        account.client.POST('/v1/messages', { body: { from: number, to: '+14155550123', body: `burst ${i}` } }),
      ),
    );
    await release(number);
    // In the release's transaction: nothing of the account's is queued from the number any more, and its pacing is
    // forgotten (the slots the burst had taken would have held back its next holder's first message).
    const db = t.server.services.store.db;
    const queued = await db
      .selectFrom('messages')
      .select('sid')
      .where('from_number', '=', number)
      .where('status', '=', 'queued')
      .execute();
    expect(queued).toEqual([]);
    expect(await db.selectFrom('carrier_send_slots').selectAll().where('from_number', '=', number).execute()).toEqual(
      [],
    );
    const { data: scheduled } = await account.client.GET('/v1/messages/{sid}', {
      params: { path: { sid: later.data!.sid } },
    });
    expect(scheduled).toMatchObject({ status: 'failed', error_code: 'from_number_released', date_sent: null });
    // Taken back by the same account, the number sends none of them, at their time or after.
    const back = await account.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: number } });
    expect(back.response.status).toBe(201);
    clock.advance(HOUR_MS);
    for (const sid of [later.data!.sid, ...burst.map((b) => b.data!.sid)]) {
      const final = await waitForStatusIn(account, sid, ['delivered', 'failed']);
      if (final.status === 'failed')
        expect(final).toMatchObject({ error_code: 'from_number_released', date_sent: null });
    }
    expect((await waitForStatusIn(account, later.data!.sid, ['delivered', 'failed'])).status).toBe('failed');
  });

  it.each([
    ['in the past', () => inMs(-60_000)],
    ['now', () => inMs(0)],
    ['more than 35 days ahead', () => inMs(35 * 24 * 3600_000 + 60_000)],
    // Hour 24, which Date would move to the next day: refused, as the list filters refuse it.
    ['that does not exist', () => `${inMs(2 * 24 * 3600_000).slice(0, 10)}T24:00:00Z`],
  ])('answers 400 naming send_at for a time %s, and stores nothing', async (_name, sendAt) => {
    const fresh = await t.newAccount();
    const number = await giveNumber(t, fresh);
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: fresh.apiKey });
    const { error, response } = await direct.POST('/v1/messages', {
      body: { from: number, to: '+14155550123', body: 'x', send_at: sendAt() },
    });
    expect(response.status).toBe(400);
    expect(error!.errors!.map((e) => e.field)).toEqual(['send_at']);
    expect((await direct.GET('/v1/messages')).data!.data).toEqual([]);
  });

  /** A number of its own per test, so the pacing of one test does not slow another. */
  function uniqueFrom() {
    return giveNumber(t, account);
  }

  /** Releases the account's number `phoneNumber` through the API. */
  async function release(phoneNumber: string) {
    const { data } = await account.client.GET('/v1/incoming-phone-numbers', { params: { query: { page_size: 1000 } } });
    const number = data!.data.find((n) => n.phone_number === phoneNumber)!;
    const { response } = await account.client.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: number.sid } },
    });
    expect(response.status).toBe(204);
  }
});

async function waitForStatusIn(account: TestAccount, sid: string, statuses: string[]) {
  return waitUntil(
    async () => {
      const { data } = await account.client.GET('/v1/messages/{sid}', { params: { path: { sid } } });
      return data && statuses.includes(data.status) ? data : undefined;
    },
    20_000,
    `message ${sid} to be ${statuses.join(' or ')}`,
  );
}
