// The message relay of proxy sessions: a participant's message to their proxy number reaches the other participant
// from that participant's proxy number, as an interaction whose status follows the relayed message; anything else
// sent to a proxy number goes to its sms_url as before.
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { TestClock } from '../support/clock.js';
import { waitUntil } from '../support/wait.js';
import { useReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

type Session = components['schemas']['ProxySession'];
type Mode = components['schemas']['ProxySessionMode'];

const MAX_QUEUED = 5;
let outsideNumbers = 0;
/** A number outside the platform, fresh for each use (the sandbox delivers to it without further effect). */
const outsider = () => `+1415555${String(100 + outsideNumbers++).padStart(4, '0')}`;

describe.each(ENGINES)('proxy message relay (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({
    engine,
    clock,
    contract: true,
    env: { ...FAST_PIPELINE, MAX_QUEUED_MESSAGES: String(MAX_QUEUED) },
  });
  const receiver = useReceiver();

  const at = (tag: string, path: string) => (w: ReceivedWebhook) => w.path === `/${tag}/${path}`;
  const hooks = (tag: string, path: string) => receiver.received.filter(at(tag, path));

  /** A participant who is a number held on the platform (by an account of their own), so what reaches them shows
   * in their sms_url webhooks. */
  async function platformParty(tag: string, name: string) {
    const account = await t.newAccount();
    const number = await giveNumber(t, account, { smsUrl: `${receiver.url}/${tag}/${name}` });
    return { account, number };
  }

  /** The session's owner: an account holding one proxy number whose sms_url is `/<tag>/pool`. */
  async function owner(tag: string): Promise<{ account: TestAccount; pool: string }> {
    const account = await t.newAccount();
    return { account, pool: await giveNumber(t, account, { smsUrl: `${receiver.url}/${tag}/pool` }) };
  }

  async function openSession(
    account: TestAccount,
    tag: string,
    identifiers: [string, string],
    mode: Mode = 'message-only',
  ): Promise<Session> {
    const { data, error } = await account.client.POST('/v1/proxy/sessions', {
      body: {
        mode,
        callback_url: `${receiver.url}/${tag}/events`,
        participants: [
          { identifier: identifiers[0], friendly_name: 'Alice' },
          { identifier: identifiers[1], friendly_name: 'Bob' },
        ],
      },
    });
    if (!data) throw new Error(`session not created: ${JSON.stringify(error)}`);
    return data;
  }

  const interactionsOf = async (account: TestAccount, sid: string) =>
    (await account.client.GET('/v1/proxy/sessions/{sid}/interactions', { params: { path: { sid } } })).data!.data;

  const inject = async (account: TestAccount, from: string, to: string, body: string, media: string[] = []) => {
    const { data, response } = await account.client.POST('/v1/sandbox/inbound-messages', {
      body: { from, to, body, ...(media.length ? { media_url: media } : {}) },
    });
    expect(response.status).toBe(201);
    return data!;
  };

  const sentBy = async (account: TestAccount, direction: 'outbound-reply' | 'outbound-api') =>
    (await account.client.GET('/v1/messages', { params: { query: { direction } } })).data!.data;

  it(
    'relays a participant message to the other participant from their proxy number, with its media, and ' +
      'completes the interaction with created then updated events',
    async () => {
      const tag = 'relay';
      const { account } = await owner(tag);
      const alice = await platformParty(tag, 'alice');
      const bob = await platformParty(tag, 'bob');
      const session = await openSession(account, tag, [alice.number, bob.number]);
      const [pa, pb] = session.participants;

      // Alice texts her proxy number from her own platform number: the carrier delivers it there as inbound.
      const media = ['https://cdn.example.com/pickup.jpg'];
      const { data: sent } = await alice.account.client.POST('/v1/messages', {
        body: { from: alice.number, to: pa.proxy_identifier, body: 'I am at the side entrance', media_url: media },
      });
      await waitForStatus(alice.account.client, sent!.sid, 'delivered');

      await receiver.waitFor((r) => r.some(at(tag, 'bob')));
      const [atBob] = hooks(tag, 'bob');
      expect(atBob.json.type).toBe('message.received');
      expect(atBob.json.data).toMatchObject({
        from: pb.proxy_identifier,
        to: bob.number,
        body: 'I am at the side entrance',
        media_url: media,
        direction: 'inbound',
      });

      const [interaction] = await waitUntil(async () => {
        const list = await interactionsOf(account, session.sid);
        return list.length === 1 && list[0].status === 'completed' && list;
      });
      const relayed = (await sentBy(account, 'outbound-reply'))[0];
      const inbound = (await account.client.GET('/v1/messages', { params: { query: { direction: 'inbound' } } })).data!
        .data[0];
      expect(inbound).toMatchObject({ from: alice.number, to: pa.proxy_identifier, body: 'I am at the side entrance' });
      expect(relayed).toMatchObject({
        from: pb.proxy_identifier,
        to: bob.number,
        body: 'I am at the side entrance',
        media_url: media,
        channel: 'mms',
        direction: 'outbound-reply',
        status: 'delivered',
      });
      expect(interaction).toMatchObject({
        session_sid: session.sid,
        type: 'message',
        from_participant_sid: pa.sid,
        to_participant_sid: pb.sid,
        body: 'I am at the side entrance',
        media_url: media,
        status: 'completed',
        inbound_sid: inbound.sid,
        outbound_sid: relayed.sid,
        duration: null,
      });

      await receiver.waitFor((r) => r.filter(at(tag, 'events')).length >= 2);
      const events = hooks(tag, 'events').map((w) => w.json);
      expect(events.map((e) => [e.type, e.data.status])).toEqual([
        ['proxy.interaction.created', 'in-progress'],
        ['proxy.interaction.updated', 'completed'],
      ]);
      expect(events[1].data).toEqual(interaction);
      expect(t.violations()).toEqual([]);
    },
  );

  it('relays the answer back: Bob texts his proxy number and Alice receives it from hers', async () => {
    const tag = 'answer';
    const { account } = await owner(tag);
    const alice = await platformParty(tag, 'alice');
    const bob = outsider();
    const session = await openSession(account, tag, [alice.number, bob]);
    const [pa, pb] = session.participants;

    // Bob is outside the platform: his message comes in through the sandbox injection.
    const inbound = await inject(account, bob, pb.proxy_identifier, 'Two minutes away');
    await receiver.waitFor((r) => r.some(at(tag, 'alice')));
    expect(hooks(tag, 'alice')[0].json.data).toMatchObject({
      from: pa.proxy_identifier,
      to: alice.number,
      body: 'Two minutes away',
    });
    const [interaction] = await waitUntil(async () => {
      const list = await interactionsOf(account, session.sid);
      return list.length === 1 && list[0].status === 'completed' && list;
    });
    expect(interaction).toMatchObject({ from_participant_sid: pb.sid, to_participant_sid: pa.sid });
    expect(interaction.inbound_sid).toBe(inbound.sid);
  });

  it('sends a message from someone who is not a participant to the sms_url and relays nothing', async () => {
    const tag = 'stranger';
    const { account, pool } = await owner(tag);
    const session = await openSession(account, tag, [outsider(), outsider()]);
    const stranger = outsider();

    const inbound = await inject(account, stranger, pool, 'Is this the bakery?');
    await receiver.waitFor((r) => r.some(at(tag, 'pool')));
    expect(hooks(tag, 'pool')[0].json).toMatchObject({ type: 'message.received', data: { sid: inbound.sid } });
    expect(await interactionsOf(account, session.sid)).toEqual([]);
    expect(await sentBy(account, 'outbound-reply')).toEqual([]);
  });

  it('sends a relay to no sms_url (so no auto-reply), neither at the proxy number nor where it arrives', async () => {
    const tag = 'no-reply';
    const { account } = await owner(tag);
    const bob = await platformParty(tag, 'bob');
    // Both the proxy number's and Bob's sms_url answer every webhook with a reply.
    receiver.answer = (w) =>
      w.path.startsWith(`/${tag}/`) && !w.path.endsWith('/events')
        ? { status: 200, contentType: 'application/json', body: JSON.stringify({ reply: 'Auto: we are closed' }) }
        : { status: 200 };
    try {
      const alice = outsider();
      const session = await openSession(account, tag, [alice, bob.number]);
      await inject(account, alice, session.participants[0].proxy_identifier, 'Hello?');
      await waitUntil(async () => (await interactionsOf(account, session.sid))[0]?.status === 'completed');
      await receiver.waitFor((r) => r.some(at(tag, 'bob')));
      // Let any reply the webhooks could have caused go out before looking for it.
      await new Promise((r) => setTimeout(r, 400));
      expect(hooks(tag, 'pool')).toEqual([]);
      const relays = await sentBy(account, 'outbound-reply');
      expect(relays.map((m) => m.to)).toEqual([bob.number]);
      expect(await sentBy(bob.account, 'outbound-reply')).toEqual([]);
    } finally {
      receiver.answer = () => ({ status: 200 });
    }
  });

  it('relays nothing once the session has ended: the message goes to the sms_url', async () => {
    const tag = 'ended';
    const { account } = await owner(tag);
    const alice = outsider();
    const session = await openSession(account, tag, [alice, outsider()]);
    const { response } = await account.client.DELETE('/v1/proxy/sessions/{sid}', {
      params: { path: { sid: session.sid } },
    });
    expect(response.status).toBe(204);

    const inbound = await inject(account, alice, session.participants[0].proxy_identifier, 'Still there?');
    await receiver.waitFor((r) => r.some(at(tag, 'pool')));
    expect(hooks(tag, 'pool')[0].json.data.sid).toBe(inbound.sid);
    expect(await interactionsOf(account, session.sid)).toEqual([]);
    expect(await sentBy(account, 'outbound-reply')).toEqual([]);
  });

  it('relays nothing once the ttl has passed, before its expiry job ran too: the message goes to sms_url', async () => {
    const tag = 'expired';
    const { account } = await owner(tag);
    const alice = outsider();
    const { data: session } = await account.client.POST('/v1/proxy/sessions', {
      body: { mode: 'message-only', ttl: 60, participants: [{ identifier: alice }, { identifier: outsider() }] },
    });
    clock.advance(61_000);

    const inbound = await inject(account, alice, session!.participants[0].proxy_identifier, 'Anyone?');
    await receiver.waitFor((r) => r.some(at(tag, 'pool')));
    expect(hooks(tag, 'pool')[0].json.data.sid).toBe(inbound.sid);
    expect(await interactionsOf(account, session!.sid)).toEqual([]);
    expect(await sentBy(account, 'outbound-reply')).toEqual([]);
  });

  it('does not relay messages in a voice-only session: they go to the sms_url', async () => {
    const tag = 'voice-only';
    const { account } = await owner(tag);
    const alice = outsider();
    const session = await openSession(account, tag, [alice, outsider()], 'voice-only');

    const inbound = await inject(account, alice, session.participants[0].proxy_identifier, 'Can you hear me?');
    await receiver.waitFor((r) => r.some(at(tag, 'pool')));
    expect(hooks(tag, 'pool')[0].json.data.sid).toBe(inbound.sid);
    expect(await interactionsOf(account, session.sid)).toEqual([]);
    const fetched = await account.client.GET('/v1/proxy/sessions/{sid}', { params: { path: { sid: session.sid } } });
    expect(fetched.data!.status).toBe('open');
  });

  it('makes the session in-progress and slides its expiry to ttl after the interaction', async () => {
    const tag = 'slide';
    const { account } = await owner(tag);
    const alice = outsider();
    const session = await openSession(account, tag, [alice, outsider()]);
    expect(session.status).toBe('open');
    clock.advance(10 * 60_000);

    await inject(account, alice, session.participants[0].proxy_identifier, 'Running late');
    const [interaction] = await interactionsOf(account, session.sid);
    const { data: fetched } = await account.client.GET('/v1/proxy/sessions/{sid}', {
      params: { path: { sid: session.sid } },
    });
    expect(fetched!.status).toBe('in-progress');
    expect(Date.parse(fetched!.date_expiry!)).toBe(Date.parse(interaction.date_created) + session.ttl * 1000);
    expect(Date.parse(fetched!.date_expiry!)).toBeGreaterThanOrEqual(Date.parse(session.date_expiry!) + 10 * 60_000);
  });

  it('fails the interaction when the relayed message is not delivered', async () => {
    const tag = 'undelivered';
    const { account } = await owner(tag);
    const alice = outsider();
    // The sandbox's unreachable number: the relay is sent, then reported undelivered.
    const session = await openSession(account, tag, [alice, '+15005550002']);

    await inject(account, alice, session.participants[0].proxy_identifier, 'Anyone?');
    const [interaction] = await waitUntil(async () => {
      const list = await interactionsOf(account, session.sid);
      return list[0]?.status === 'failed' && list;
    });
    expect(interaction.outbound_sid).not.toBeNull();
    await receiver.waitFor((r) => r.filter(at(tag, 'events')).length >= 2);
    expect(hooks(tag, 'events').map((w) => [w.json.type, w.json.data.status])).toEqual([
      ['proxy.interaction.created', 'in-progress'],
      ['proxy.interaction.updated', 'failed'],
    ]);
  });

  it('relays nothing and takes no send slot when the queue is full: the interaction fails, inbound kept', async () => {
    const tag = 'queue-full';
    const { account, pool } = await owner(tag);
    const alice = outsider();
    const session = await openSession(account, tag, [alice, outsider()]);
    // Fill the account's queue with messages scheduled for tomorrow.
    const sendAt = new Date(clock.now() + 24 * 3600_000).toISOString();
    for (let i = 0; i < MAX_QUEUED; i++) {
      const { response } = await account.client.POST('/v1/messages', {
        body: { from: pool, to: outsider(), body: `reminder ${i}`, send_at: sendAt },
      });
      expect(response.status).toBe(201);
    }

    const inbound = await inject(account, alice, session.participants[0].proxy_identifier, 'Hello?');
    const [interaction] = await interactionsOf(account, session.sid);
    expect(interaction).toMatchObject({ status: 'failed', inbound_sid: inbound.sid, outbound_sid: null });
    expect(await sentBy(account, 'outbound-reply')).toEqual([]);
    // The refusal undid the relay's send whole: the proxy number's pacing was not moved for it.
    const slots = t.server.services.store.db.selectFrom('carrier_send_slots').selectAll();
    expect(await slots.where('from_number', '=', pool).execute()).toEqual([]);
    const { data: stored } = await account.client.GET('/v1/messages/{sid}', { params: { path: { sid: inbound.sid } } });
    expect(stored).toMatchObject({ direction: 'inbound', status: 'received' });
    await receiver.waitFor((r) => r.some(at(tag, 'events')));
    expect(hooks(tag, 'events').map((w) => [w.json.type, w.json.data.status])).toEqual([
      ['proxy.interaction.created', 'failed'],
    ]);
    // Nor does the participant's message go to the sms_url: it belongs to the session.
    expect(hooks(tag, 'pool')).toEqual([]);
  });

  it('relays no media from a proxy number without MMS: the interaction fails, nothing is sent', async () => {
    const tag = 'no-mms';
    const account = await t.newAccount();
    const { data: found } = await account.client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 50, sms_enabled: true } },
    });
    let pool: string | undefined;
    for (const candidate of found!.data.filter((n) => !n.capabilities.mms)) {
      const { data } = await account.client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: candidate.phone_number },
      });
      pool = data?.phone_number;
      if (pool) break;
    }
    const alice = outsider();
    const session = await openSession(account, tag, [alice, outsider()]);
    expect(session.participants[1].proxy_identifier).toBe(pool);
    const inbound = await inject(account, alice, session.participants[0].proxy_identifier, 'A photo', [
      'https://cdn.example.com/photo.jpg',
    ]);
    const [interaction] = await interactionsOf(account, session.sid);
    expect(interaction).toMatchObject({ status: 'failed', inbound_sid: inbound.sid, outbound_sid: null });
    expect(await sentBy(account, 'outbound-reply')).toEqual([]);
    // Text alone it relays.
    await inject(account, alice, session.participants[0].proxy_identifier, 'Text only');
    await waitUntil(async () => (await sentBy(account, 'outbound-reply')).length === 1);
  });

  it('does not relay again a relayed message that arrives at a proxy number of another session (no loop)', async () => {
    const tag = 'loop';
    const x = await owner(`${tag}-x`);
    // Y holds a single number, so it is the proxy number of both participants of Y's session.
    const y = await owner(`${tag}-y`);
    const alice = outsider();
    // X masks Alice and Y's number; Y masks the proxy number X gave its number, and someone else.
    const sx = await openSession(x.account, `${tag}-x`, [alice, y.pool]);
    const xProxyOfY = sx.participants[1].proxy_identifier;
    const sy = await openSession(y.account, `${tag}-y`, [xProxyOfY, outsider()]);
    expect(sy.participants[0].proxy_identifier).toBe(y.pool);

    await inject(x.account, alice, sx.participants[0].proxy_identifier, 'Round and round?');
    await waitUntil(async () => (await interactionsOf(x.account, sx.sid))[0]?.status === 'completed');
    // It arrives at Y's number from a participant of Y's session, but as a relay: stored and shown to Y's sms_url
    // (with no reply), never relayed on.
    await receiver.waitFor((r) => r.some(at(`${tag}-y`, 'pool')));
    expect(hooks(`${tag}-y`, 'pool')[0].json.data).toMatchObject({ from: xProxyOfY, body: 'Round and round?' });
    expect(await interactionsOf(y.account, sy.sid)).toEqual([]);
    expect(await sentBy(y.account, 'outbound-reply')).toEqual([]);
  });
});
