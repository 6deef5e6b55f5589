// The proxy sessions API through the Prism contract proxy: create (JSON and form, Idempotency-Key, unique_name),
// fetch, list (status filter, pages), end (twice: one event), and a session's interactions.
import { describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { createSession, pair, participant, provisionNumber, type ProxySession } from '../support/proxy.js';
import { insertInteraction } from '../../server/proxy/store.js';
import { newSid } from '../../server/ids.js';

const SID = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}[0-9a-f]{32}$`));
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const plusSeconds = (iso: string, s: number) => new Date(Date.parse(iso) + s * 1000).toISOString();
/** The order of the API's lists: by date_created, then sid, descending. */
const newestFirst = (sessions: ProxySession[]) =>
  [...sessions].sort((a, b) => b.date_created.localeCompare(a.date_created) || b.sid.localeCompare(a.sid));

describe.each(ENGINES)('proxy sessions (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true });
  const receiver = useReceiver();
  const sessionPath = (sid: string) => ({ params: { path: { sid } } });
  const closedEvents = (sid: string) =>
    t.server.services.store.db
      .selectFrom('webhook_events')
      .select('payload')
      .where('resource_sid', '=', sid)
      .where('type', '=', 'proxy.session.closed')
      .execute();

  it('creates a session: 201, open, each participant with a proxy number, expiring ttl after creation', async () => {
    const number = await provisionNumber(t, t.account, { sms: true });
    const { data, response } = await t.account.client.POST('/v1/proxy/sessions', {
      body: {
        unique_name: 'order-1042',
        ttl: 600,
        mode: 'message-only',
        callback_url: `${receiver.url}/proxy`,
        participants: [
          { identifier: participant(1), friendly_name: 'Alice (rider)' },
          { identifier: participant(2), friendly_name: 'Bob (driver)' },
        ],
      },
    });
    expect(response.status).toBe(201);
    expect(data).toEqual({
      sid: SID('KC'),
      account_sid: t.account.sid,
      unique_name: 'order-1042',
      status: 'open',
      mode: 'message-only',
      ttl: 600,
      date_expiry: plusSeconds(data!.date_created, 600),
      closed_reason: null,
      callback_url: `${receiver.url}/proxy`,
      participants: [
        { sid: SID('KP'), identifier: participant(1), proxy_identifier: number, friendly_name: 'Alice (rider)' },
        { sid: SID('KP'), identifier: participant(2), proxy_identifier: number, friendly_name: 'Bob (driver)' },
      ],
      date_created: ISO,
      date_updated: data!.date_created,
      date_ended: null,
    });
  });

  it('defaults to a ttl of 3600 s and voice-and-message, without unique_name or callback_url', async () => {
    await provisionNumber(t, t.account, { sms: true });
    const session = await createSession(t.account.client, { participants: pair(participant(1), participant(2)) });
    expect(session).toMatchObject({ ttl: 3600, mode: 'voice-and-message', unique_name: null, callback_url: null });
    expect(session.date_expiry).toBe(plusSeconds(session.date_created, 3600));
  });

  // To the server itself: Prism reads no bracket notation in a form body (it finds no `participants`).
  it('takes a form body with the participants in bracket notation', async () => {
    const number = await provisionNumber(t, t.account, { sms: true });
    const form = new URLSearchParams({
      'participants[0][identifier]': participant(1),
      'participants[0][friendly_name]': 'Alice',
      'participants[1][identifier]': participant(2),
      ttl: '120',
      mode: 'voice-only',
    });
    const res = await fetch(`${t.directUrl}/v1/proxy/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.account.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const body: any = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ ttl: 120, mode: 'voice-only' });
    expect(body.participants).toEqual([
      { sid: SID('KP'), identifier: participant(1), proxy_identifier: number, friendly_name: 'Alice' },
      { sid: SID('KP'), identifier: participant(2), proxy_identifier: number, friendly_name: null },
    ]);
    // The typed client's form encoding writes the same fields.
    const client = createTelephonyClient({ baseUrl: t.directUrl, apiKey: t.account.apiKey, encoding: 'form' });
    const { data, response } = await client.POST('/v1/proxy/sessions', {
      body: { participants: pair(participant(3), participant(4)), ttl: 60 },
    });
    expect(response.status).toBe(201);
    expect(data!.participants.map((p) => p.identifier)).toEqual([participant(3), participant(4)]);
  });

  it('fetches a session as it was created', async () => {
    await provisionNumber(t, t.account, { sms: true });
    const created = await createSession(t.account.client, { participants: pair(participant(1), participant(2)) });
    const { data, response } = await t.account.client.GET('/v1/proxy/sessions/{sid}', sessionPath(created.sid));
    expect(response.status).toBe(200);
    expect(data).toEqual(created);
  });

  it('answers 409 unique_name_in_use for the name of a session not ended, and takes it once it ended', async () => {
    await provisionNumber(t, t.account, { sms: true });
    const body = { unique_name: 'ride-7', participants: pair(participant(1), participant(2)) };
    const first = await createSession(t.account.client, body);
    const again = await t.account.client.POST('/v1/proxy/sessions', {
      body: { ...body, participants: pair(participant(3), participant(4)) },
    });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ code: 'unique_name_in_use', status: 409 });
    await t.account.client.DELETE('/v1/proxy/sessions/{sid}', sessionPath(first.sid));
    const reused = await createSession(t.account.client, body);
    expect(reused.unique_name).toBe('ride-7');
    // Another account's sessions have names of their own.
    const other = await t.newAccount();
    await provisionNumber(t, other, { sms: true });
    expect((await createSession(other.client, body)).unique_name).toBe('ride-7');
  });

  it('replays a create with the same Idempotency-Key, and makes one session', async () => {
    await provisionNumber(t, t.account, { sms: true });
    const body = { participants: pair(participant(1), participant(2)) };
    const params = { header: { 'Idempotency-Key': 'proxy-create-1' } };
    const first = await t.account.client.POST('/v1/proxy/sessions', { body, params });
    const second = await t.account.client.POST('/v1/proxy/sessions', { body, params });
    expect([first.response.status, second.response.status]).toEqual([201, 201]);
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    expect(second.data).toEqual(first.data);
    const { data } = await t.account.client.GET('/v1/proxy/sessions');
    expect(data!.data.map((s) => s.sid)).toEqual([first.data!.sid]);
  });

  it('lists sessions newest first, page by page, and by status', async () => {
    await provisionNumber(t, t.account, { sms: true });
    const made: ProxySession[] = [];
    for (let i = 0; i < 3; i++) {
      const participants = pair(participant(2 * i), participant(2 * i + 1));
      made.push(await createSession(t.account.client, { participants }));
    }
    await t.account.client.DELETE('/v1/proxy/sessions/{sid}', sessionPath(made[1].sid));
    const ended = {
      ...made[1],
      ...(await t.account.client.GET('/v1/proxy/sessions/{sid}', sessionPath(made[1].sid))).data,
    };
    const all = newestFirst([made[0], ended, made[2]]);
    const first = await t.account.client.GET('/v1/proxy/sessions', { params: { query: { page_size: 2 } } });
    expect(first.data!.data).toEqual(all.slice(0, 2));
    const second = await t.account.client.GET('/v1/proxy/sessions', {
      params: { query: { page_size: 2, page_token: first.data!.next_page_token! } },
    });
    expect(second.data).toEqual({ data: all.slice(2), next_page_token: null });
    const open = await t.account.client.GET('/v1/proxy/sessions', { params: { query: { status: 'open' } } });
    expect(open.data).toEqual({ data: newestFirst([made[0], made[2]]), next_page_token: null });
    const closed = await t.account.client.GET('/v1/proxy/sessions', { params: { query: { status: 'closed' } } });
    expect(closed.data).toEqual({ data: [ended], next_page_token: null });
    expect(ended).toMatchObject({ status: 'closed', closed_reason: 'ended' });
    const other = await t.newAccount();
    expect((await other.client.GET('/v1/proxy/sessions')).data).toEqual({ data: [], next_page_token: null });
  });

  it('ends a session: 204, closed and ended, its pairs free at once; ending again is 204 with one event', async () => {
    const number = await provisionNumber(t, t.account, { sms: true });
    const body = { callback_url: `${receiver.url}/end`, participants: pair(participant(1), participant(2)) };
    const session = await createSession(t.account.client, body);
    // One number, so the same participants can have another session only once these pairs are free.
    expect((await t.account.client.POST('/v1/proxy/sessions', { body })).response.status).toBe(422);

    const ended = await t.account.client.DELETE('/v1/proxy/sessions/{sid}', sessionPath(session.sid));
    expect(ended.response.status).toBe(204);
    const { data } = await t.account.client.GET('/v1/proxy/sessions/{sid}', sessionPath(session.sid));
    expect(data).toEqual({
      ...session,
      status: 'closed',
      closed_reason: 'ended',
      date_expiry: null,
      date_ended: ISO,
      date_updated: data!.date_ended,
    });
    const next = await createSession(t.account.client, body);
    expect(next.participants.map((p) => p.proxy_identifier)).toEqual([number, number]);

    const again = await t.account.client.DELETE('/v1/proxy/sessions/{sid}', sessionPath(session.sid));
    expect(again.response.status).toBe(204);
    expect((await t.account.client.GET('/v1/proxy/sessions/{sid}', sessionPath(session.sid))).data).toEqual(data);
    await receiver.waitFor((all) =>
      all.some((w) => w.json?.type === 'proxy.session.closed' && w.json.data.sid === session.sid),
    );
    const delivered = receiver.received.filter((w) => w.json?.data?.sid === session.sid);
    expect(delivered.map((w) => w.json.type)).toEqual(['proxy.session.closed']);
    expect(delivered[0].json.data).toEqual(data);
    expect(await closedEvents(session.sid)).toHaveLength(1);
  });

  it("lists a session's interactions newest first, page by page", async () => {
    await provisionNumber(t, t.account, { sms: true });
    const session = await createSession(t.account.client, { participants: pair(participant(1), participant(2)) });
    const empty = await t.account.client.GET('/v1/proxy/sessions/{sid}/interactions', sessionPath(session.sid));
    expect(empty.data).toEqual({ data: [], next_page_token: null });

    // What the message relay records (its own tests relay for real): three messages, one second apart.
    const [alice, bob] = session.participants;
    const rows = [0, 1, 2].map((i) => {
      const at = new Date(Date.parse(session.date_created) + i * 1000);
      return {
        sid: newSid('proxyInteraction', at.getTime()),
        session_sid: session.sid,
        account_sid: t.account.sid,
        type: 'message' as const,
        from_participant_sid: i % 2 ? bob.sid : alice.sid,
        to_participant_sid: i % 2 ? alice.sid : bob.sid,
        body: `message ${i}`,
        media_url: '[]',
        status: 'completed' as const,
        inbound_sid: newSid('message', at.getTime()),
        outbound_sid: newSid('message', at.getTime()),
        duration: null,
        date_created: at.toISOString(),
        date_updated: at.toISOString(),
      };
    });
    for (const row of rows) await insertInteraction(t.server.services.store.db, row);

    const first = await t.account.client.GET('/v1/proxy/sessions/{sid}/interactions', {
      params: { path: { sid: session.sid }, query: { page_size: 2 } },
    });
    expect(first.data!.data.map((i) => i.body)).toEqual(['message 2', 'message 1']);
    const { account_sid: _, ...newest } = rows[2];
    expect(first.data!.data[0]).toEqual({ ...newest, media_url: [] });
    const second = await t.account.client.GET('/v1/proxy/sessions/{sid}/interactions', {
      params: { path: { sid: session.sid }, query: { page_size: 2, page_token: first.data!.next_page_token! } },
    });
    expect(second.data!.data.map((i) => i.body)).toEqual(['message 0']);
    expect(second.data!.next_page_token).toBeNull();
  });
});
