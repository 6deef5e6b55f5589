// A session's end without the API: its ttl passes (the durable expiry job, on the server's TestClock, across a
// restart, once even with two instances), or one of its proxy numbers is released (`failed`, `number_released`).
import { describe, expect, it } from 'vitest';
import { start } from '../../server/app.js';
import { touchSession } from '../../server/proxy/store.js';
import { ENGINES, startTestServer, useTestServer, type TestServer } from '../support/server.js';
import { startReceiver, useReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { TestClock } from '../support/clock.js';
import { waitUntil } from '../support/wait.js';
import { createSession, pair, participant, provisionNumber, type ProxySession } from '../support/proxy.js';

const closedEventsOf = (receiver: WebhookReceiver, sid: string) =>
  receiver.received.filter((w) => w.json?.type === 'proxy.session.closed' && w.json.data.sid === sid);
const waitForClosed = (receiver: WebhookReceiver, sid: string) =>
  receiver.waitFor(() => closedEventsOf(receiver, sid).length > 0);

/** The stored events and pending expiry jobs of a session: what "exactly once" is checked against. */
async function trail(t: TestServer, sid: string) {
  const db = t.server.services.store.db;
  const events = await db
    .selectFrom('webhook_events')
    .select('type')
    .where('resource_sid', '=', sid)
    .where('type', '=', 'proxy.session.closed')
    .execute();
  const jobs = await db.selectFrom('jobs').select(['run_at', 'payload']).where('kind', '=', 'proxy.expire').execute();
  return { events: events.length, jobs: jobs.filter((j) => JSON.parse(j.payload).sid === sid) };
}

/** What the open sessions quota counts for the account (migration 014's triggers). */
const openCount = async (t: TestServer, accountSid: string) =>
  (
    await t.server.services.store.db
      .selectFrom('proxy_open_counts')
      .select('open')
      .where('account_sid', '=', accountSid)
      .executeTakeFirst()
  )?.open;

const openPairs = (t: TestServer, sid: string) =>
  t.server.services.store.db.selectFrom('proxy_participants').select('open').where('session_sid', '=', sid).execute();

describe.each(ENGINES)('proxy session expiry (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, clock });
  const receiver = useReceiver();
  const newSession = async (ttl = 60): Promise<ProxySession> => {
    await provisionNumber(t, t.account, { sms: true });
    return createSession(t.account.client, {
      ttl,
      callback_url: `${receiver.url}/expiry`,
      participants: pair(participant(1), participant(2)),
    });
  };
  const get = async (sid: string) =>
    (await t.account.client.GET('/v1/proxy/sessions/{sid}', { params: { path: { sid } } })).data!;

  it('closes it ttl_expired when its ttl passes, frees its pairs, posts proxy.session.closed once', async () => {
    const session = await newSession();
    clock.advance(59_000);
    expect((await get(session.sid)).status).toBe('open');
    clock.advance(1_000);
    await waitForClosed(receiver, session.sid);
    const closed = await get(session.sid);
    expect(closed).toMatchObject({ status: 'closed', closed_reason: 'ttl_expired', date_expiry: null });
    expect(Date.parse(closed.date_ended!)).toBeGreaterThanOrEqual(Date.parse(session.date_expiry!));
    expect(closedEventsOf(receiver, session.sid).map((w) => w.json.data)).toEqual([closed]);
    expect(await openPairs(t, session.sid)).toEqual([{ open: 0 }, { open: 0 }]);
    expect(await trail(t, session.sid)).toEqual({ events: 1, jobs: [] });
    expect(await openCount(t, t.account.sid)).toBe(0);
  });

  it('does not expire a session touched since at its first date, but ttl after the touch', async () => {
    const session = await newSession();
    clock.advance(30_000);
    // What a relay does on an interaction (the relays' own tests touch through real traffic).
    const row = await t.server.services.store.db
      .selectFrom('proxy_sessions')
      .selectAll()
      .where('sid', '=', session.sid)
      .executeTakeFirstOrThrow();
    expect(await touchSession(t.server.services.store.db, row, new Date(clock.now()).toISOString())).toBe(true);
    const touched = await get(session.sid);
    expect(touched).toMatchObject({ status: 'in-progress' });
    clock.advance(30_000);
    // The job ran at the first date, found the session slid, and moved itself to the new one.
    await waitUntil(
      async () => {
        const { jobs } = await trail(t, session.sid);
        return jobs.length === 1 && jobs[0].run_at === touched.date_expiry;
      },
      10_000,
      'the expiry job moved to the slid date',
    );
    expect(await get(session.sid)).toMatchObject({ status: 'in-progress', date_expiry: touched.date_expiry });
    clock.advance(30_000);
    await waitForClosed(receiver, session.sid);
    expect(await get(session.sid)).toMatchObject({ status: 'closed', closed_reason: 'ttl_expired' });
    expect(await trail(t, session.sid)).toEqual({ events: 1, jobs: [] });
  });

  it('leaves a session ended before its expiry as it is: no second event', async () => {
    const session = await newSession();
    await t.account.client.DELETE('/v1/proxy/sessions/{sid}', { params: { path: { sid: session.sid } } });
    const ended = await get(session.sid);
    clock.advance(60_000);
    await waitUntil(async () => (await trail(t, session.sid)).jobs.length === 0, 10_000, 'the expiry job to finish');
    expect(await get(session.sid)).toEqual(ended);
    expect((await trail(t, session.sid)).events).toBe(1);
  });

  it('fails the sessions a released number serves (number_released, one event each), not the others', async () => {
    const released = await provisionNumber(t, t.account, { area_code: '415', sms: true });
    const kept = await provisionNumber(t, t.account, { area_code: '212', sms: true });
    const callback_url = `${receiver.url}/release`;
    // participant(1) is of area 415, participant(3, '212') of 212: each gets the number of their area code.
    const onReleased = await createSession(t.account.client, {
      callback_url,
      participants: pair(participant(1), participant(2)),
    });
    const mixed = await createSession(t.account.client, {
      callback_url,
      participants: pair(participant(4), participant(3, '212')),
    });
    const untouched = await createSession(t.account.client, {
      callback_url,
      participants: pair(participant(5, '212'), participant(6, '212')),
    });
    expect(mixed.participants.map((p) => p.proxy_identifier)).toEqual([released, kept]);
    expect(untouched.participants.map((p) => p.proxy_identifier)).toEqual([kept, kept]);

    const { data: numbers } = await t.account.client.GET('/v1/incoming-phone-numbers', {
      params: { query: { phone_number: released } },
    });
    const release = await t.account.client.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: numbers!.data[0].sid } },
    });
    expect(release.response.status).toBe(204);
    for (const session of [onReleased, mixed]) {
      const failed = await get(session.sid);
      expect(failed).toMatchObject({ status: 'failed', closed_reason: 'number_released', date_expiry: null });
      expect(failed.date_ended).not.toBeNull();
      await waitForClosed(receiver, session.sid);
      expect(closedEventsOf(receiver, session.sid).map((w) => w.json.data)).toEqual([failed]);
      expect(await openPairs(t, session.sid)).toEqual([{ open: 0 }, { open: 0 }]);
    }
    expect(await get(untouched.sid)).toEqual(untouched);
    expect(await openCount(t, t.account.sid)).toBe(1);
  });
});

describe.each(ENGINES)('proxy session expiry across a restart (%s)', (engine) => {
  it('expires a session with the job recorded before the restart', async () => {
    const clock = new TestClock();
    const t = await startTestServer(engine, {}, { clock });
    const receiver = await startReceiver();
    try {
      const account = await t.newAccount();
      await provisionNumber(t, account, { sms: true });
      const session = await createSession(account.client, {
        ttl: 60,
        callback_url: receiver.url,
        participants: pair(participant(1), participant(2)),
      });
      await t.restart();
      clock.advance(60_000);
      await waitForClosed(receiver, session.sid);
      expect(await trail(t, session.sid)).toEqual({ events: 1, jobs: [] });
    } finally {
      await receiver.close();
      await t.stop();
    }
  });
});

describe.runIf(ENGINES.includes('postgres'))('proxy session expiry with two instances (postgres)', () => {
  it('closes each session once, with one event, when two instances run the expiry jobs', async () => {
    const clock = new TestClock();
    const t = await startTestServer('postgres', {}, { clock });
    const second = await start({ ...t.config, port: 0 }, { clock });
    const receiver = await startReceiver();
    try {
      const account = await t.newAccount();
      await provisionNumber(t, account, { sms: true });
      const sessions: ProxySession[] = [];
      for (let i = 0; i < 20; i++) {
        const participants = pair(participant(2 * i), participant(2 * i + 1));
        sessions.push(await createSession(account.client, { ttl: 60, callback_url: receiver.url, participants }));
      }
      clock.advance(60_000);
      for (const session of sessions) await waitForClosed(receiver, session.sid);
      for (const session of sessions) {
        expect(closedEventsOf(receiver, session.sid)).toHaveLength(1);
        expect(await trail(t, session.sid)).toEqual({ events: 1, jobs: [] });
      }
    } finally {
      await receiver.close();
      await second.close();
      await t.stop();
    }
  });
});
