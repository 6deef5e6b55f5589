// The proxy pool: a number with the capabilities the mode needs, in the participant's country and area code first;
// 422 no_proxy_number_available with nothing written when none is free; and the race of issue 22: 200 sessions
// created at once over 10 numbers and 40 participants never give a pair twice, and every refusal is a clean 422.
import { describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { createSession, pair, participant, provisionNumber, provisionPool } from '../support/proxy.js';
import { stateOfAccount } from '../support/rows.js';
import { insertParticipant } from '../../server/proxy/session-store.js';
import { newSid } from '../../server/ids.js';

describe.each(ENGINES)('the proxy pool (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true });

  it('gives a message-only session only numbers that take SMS, and a voice-only one a landline', async () => {
    const landline = await provisionNumber(t, t.account, { country: 'GB', sms: false });
    const body = { participants: pair(participant(1), participant(2)) };
    for (const mode of ['message-only', 'voice-and-message'] as const) {
      const { response, error } = await t.account.client.POST('/v1/proxy/sessions', { body: { ...body, mode } });
      expect(response.status).toBe(422);
      expect(error).toMatchObject({ code: 'no_proxy_number_available' });
    }
    const voice = await createSession(t.account.client, { ...body, mode: 'voice-only' });
    expect(voice.participants.map((p) => p.proxy_identifier)).toEqual([landline, landline]);
  });

  it("prefers a number in the participant's country, and in the NANP one of their area code", async () => {
    const sf = await provisionNumber(t, t.account, { area_code: '415', sms: true });
    const nyc = await provisionNumber(t, t.account, { area_code: '212', sms: true });
    const uk = await provisionNumber(t, t.account, { country: 'GB', sms: true });
    const london = await createSession(t.account.client, { participants: pair('+447700900123', participant(1)) });
    expect(london.participants.map((p) => p.proxy_identifier)).toEqual([uk, sf]);
    const east = await createSession(t.account.client, { participants: pair(participant(2), participant(3, '212')) });
    expect(east.participants.map((p) => p.proxy_identifier)).toEqual([sf, nyc]);
    // Los Angeles: no number of its area code, so one of the country's.
    const west = await createSession(t.account.client, { participants: pair(participant(4, '310'), '+447700900124') });
    expect([sf, nyc]).toContain(west.participants[0].proxy_identifier);
    expect(west.participants[1].proxy_identifier).toBe(uk);
  });

  it('takes the next number when the one a participant starts at already serves it in an open session', async () => {
    // Both of the participants' area code: neither is preferred but by where the participant starts (a hash).
    const numbers = [
      await provisionNumber(t, t.account, { area_code: '415', sms: true }),
      await provisionNumber(t, t.account, { area_code: '415', sms: true }),
    ];
    const one = await createSession(t.account.client, { participants: pair(participant(1), participant(2)) });
    const two = await createSession(t.account.client, { participants: pair(participant(1), participant(3)) });
    const started = one.participants[0].proxy_identifier;
    expect(numbers).toContain(started);
    expect(two.participants[0].proxy_identifier).toBe(numbers.find((n) => n !== started));
  });

  it('offers a number bought since the last creation, and never one released since, to the next sessions', async () => {
    const client = t.account.client;
    const first = await provisionNumber(t, t.account, { area_code: '415', sms: true });
    await createSession(client, { participants: pair(participant(1), participant(2)) });
    // participant(1) holds `first` in an open session: only a number bought after that creation can serve it.
    const bought = await provisionNumber(t, t.account, { area_code: '415', sms: true });
    const again = await createSession(client, { participants: pair(participant(1), participant(3)) });
    expect(again.participants[0].proxy_identifier).toBe(bought);
    const numbers = (await client.GET('/v1/incoming-phone-numbers', { params: { query: { page_size: 50 } } })).data!;
    const released = numbers.data.find((n) => n.phone_number === first)!;
    const { response } = await client.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: released.sid } },
    });
    expect(response.status).toBe(204);
    // Participants that would start at either number (a hash): every one is given the number still held.
    for (let n = 10; n < 20; n += 2) {
      const session = await createSession(client, { participants: pair(participant(n), participant(n + 1)) });
      expect(session.participants.map((p) => p.proxy_identifier)).toEqual([bought, bought]);
    }
  });

  it('spreads new participants over the numbers of equal rank instead of giving all of them the first', async () => {
    const pool = await provisionPool(t, t.account, 10);
    const used = new Map<string, number>();
    for (let n = 0; n < 40; n++) {
      const session = await createSession(t.account.client, {
        participants: pair(participant(n % 100, '646'), participant(n % 100, '917')),
      });
      for (const p of session.participants) used.set(p.proxy_identifier, (used.get(p.proxy_identifier) ?? 0) + 1);
    }
    // 80 participants over 10 numbers: every number serves some, none serves most.
    expect([...used.keys()].sort()).toEqual([...pool].sort());
    expect(Math.max(...used.values())).toBeLessThan(30);
  });

  it('answers 422 no_proxy_number_available when no number is free for a participant, and writes nothing', async () => {
    const empty = await t.account.client.POST('/v1/proxy/sessions', {
      body: { participants: pair(participant(1), participant(2)) },
    });
    expect(empty.response.status).toBe(422);
    expect(empty.error).toMatchObject({ code: 'no_proxy_number_available', status: 422 });

    await provisionNumber(t, t.account, { sms: true });
    await createSession(t.account.client, { participants: pair(participant(1), participant(2)) });
    const before = await stateOfAccount(t, t.account.sid);
    // participant(3) could have the number, participant(1) cannot: neither is written.
    const refused = await t.account.client.POST('/v1/proxy/sessions', {
      body: { participants: pair(participant(3), participant(1)) },
    });
    expect(refused.response.status).toBe(422);
    expect(refused.error).toMatchObject({
      code: 'no_proxy_number_available',
      detail: expect.stringContaining(participant(1)),
    });
    expect(await stateOfAccount(t, t.account.sid)).toEqual(before);
  });

  it('never gives a pair twice when 200 sessions are created at once over 10 numbers and 40 participants', async () => {
    await provisionPool(t, t.account, 10);
    // The server itself: Prism in front would take the requests one at a time.
    const client = createTelephonyClient({ baseUrl: t.directUrl, apiKey: t.account.apiKey });
    // mulberry32: the same pairs on every run, spread over all 40 participants.
    let seed = 22;
    const random = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) % n;
    };
    const bodies = Array.from({ length: 200 }, () => {
      const a = random(40);
      const b = (a + 1 + random(39)) % 40;
      return { participants: pair(participant(a), participant(b)), mode: 'message-only' as const };
    });
    const answers = await Promise.all(bodies.map((body) => client.POST('/v1/proxy/sessions', { body })));

    const created = answers.filter((a) => a.response.status === 201).map((a) => a.data!);
    const refused = answers.filter((a) => a.response.status !== 201);
    for (const { response, error } of refused) {
      expect(response.status).toBe(422);
      expect(error).toMatchObject({ code: 'no_proxy_number_available' });
    }
    // 40 participants x 10 numbers = 400 pairs, two a session: some creations must be refused, most not.
    expect(created.length).toBeGreaterThan(100);
    expect(refused.length).toBeGreaterThan(0);

    const pairs = created.flatMap((s) => s.participants.map((p) => `${p.identifier}>${p.proxy_identifier}`));
    expect(new Set(pairs).size).toBe(pairs.length);
    // What the database holds: exactly the sessions answered 201, each with its two participants, nothing else.
    const db = t.server.services.store.db;
    const sessions = await db
      .selectFrom('proxy_sessions')
      .select('sid')
      .where('account_sid', '=', t.account.sid)
      .execute();
    expect(sessions.map((s) => s.sid).sort()).toEqual(created.map((s) => s.sid).sort());
    const participants = await db
      .selectFrom('proxy_participants')
      .select(['sid', 'session_sid', 'identifier', 'proxy_identifier', 'open'])
      .where('account_sid', '=', t.account.sid)
      .execute();
    const stored = participants.map((p) => `${p.identifier}>${p.proxy_identifier}`);
    expect(stored.sort()).toEqual([...pairs].sort());
    expect(participants.every((p) => p.open === 1)).toBe(true);
  });

  it('answers no 5xx when releases, ends and creations of one account race (one lock order)', async () => {
    const client = t.account.client;
    for (let round = 0; round < 3; round++) {
      await provisionPool(t, t.account, 4);
      const open = [];
      for (let i = 0; i < 6; i++) {
        open.push(await createSession(client, { participants: pair(participant(i * 2), participant(i * 2 + 1)) }));
      }
      const numbers = (await client.GET('/v1/incoming-phone-numbers', { params: { query: { page_size: 50 } } })).data!;
      const statuses = await Promise.all([
        ...numbers.data.slice(0, 2).map(async (n) => {
          const { response } = await client.DELETE('/v1/incoming-phone-numbers/{sid}', {
            params: { path: { sid: n.sid } },
          });
          return response.status;
        }),
        ...open.slice(0, 4).map(async (session) => {
          const { response } = await client.DELETE('/v1/proxy/sessions/{sid}', {
            params: { path: { sid: session.sid } },
          });
          return response.status;
        }),
        ...Array.from({ length: 6 }, async (_, i) => {
          const { response } = await client.POST('/v1/proxy/sessions', {
            body: { participants: pair(participant(50 + i * 2), participant(51 + i * 2)) },
          });
          return response.status;
        }),
      ]);
      expect(statuses.filter((status) => ![201, 204, 422].includes(status))).toEqual([]);
    }
  });

  it('takes a pair once among open sessions by the index itself: one of 20 concurrent inserts', async () => {
    const store = t.server.services.store;
    const row = (n: number, open: number) => ({
      sid: newSid('proxyParticipant', Date.now()),
      session_sid: `KC${String(n).padStart(32, '0')}`,
      account_sid: t.account.sid,
      position: 0,
      identifier: participant(90),
      proxy_identifier: '+14155550999',
      friendly_name: null,
      open,
    });
    // Concurrent transactions with no lock of ours around them: only the partial unique index orders them.
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, n) => store.transaction((tx) => insertParticipant(tx.db, row(n, 1)))),
    );
    expect(taken.filter(Boolean)).toHaveLength(1);
    // A closed session's pair is no longer taken: it neither blocks nor is blocked.
    expect(await insertParticipant(store.db, row(99, 0))).toBe(true);
  });
});
