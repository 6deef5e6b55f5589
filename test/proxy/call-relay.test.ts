// The proxy's call relay (issue 22, point 4): a participant calling their proxy number is bridged to the other
// participant, who sees the call come from their own proxy number; the call is an interaction of the session that
// follows the bridged leg, told to the session's callback_url. Through the Prism contract proxy, on a test clock.
import { beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { useReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';
import { TestClock } from '../support/clock.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, finalCall, holdNumber, sayThenHangup } from '../calls/support.js';

type Session = components['schemas']['ProxySession'];
type Interaction = components['schemas']['ProxyInteraction'];
type Mode = components['schemas']['ProxySessionMode'];

const BUSY = '+15005550006';
const NO_ANSWER = '+15005550007';

describe.each(ENGINES)('proxy call relay (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: FAST_CALLS, contract: true, clock });
  const receiver = useReceiver();
  let account: TestAccount;
  beforeAll(async () => {
    account = await t.newAccount('proxy');
    // The pool: two numbers for every mode (voice and SMS), whose voice_url answers callers who are not bridged.
    const { data } = await account.client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 2, sms_enabled: true, voice_enabled: true } },
    });
    for (const { phone_number: number } of data!.data) {
      const { response } = await account.client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: number, VoiceUrl: `${receiver.url}/voice` },
      });
      expect(response.status).toBe(201);
    }
    receiver.answer = (request) =>
      request.path === '/voice'
        ? { status: 200, contentType: 'text/xml', body: sayThenHangup('You reached the voice app') }
        : { status: 200 };
  });

  // Each test's participants are new numbers, so no pair of the pool is taken by an earlier test's session; from the
  // fictional 555-01xx range, which no number on the platform is drawn from.
  let nextNumber = 20;
  const outsideNumber = () => `+141555501${String(nextNumber++).padStart(2, '0')}`;

  async function openSession(first: string, second: string, mode: Mode = 'voice-and-message', ttl?: number) {
    const { data, error } = await account.client.POST('/v1/proxy/sessions', {
      body: {
        mode,
        ttl,
        callback_url: `${receiver.url}/proxy`,
        participants: [{ identifier: first }, { identifier: second }],
      },
    });
    expect(error).toBeUndefined();
    return data!;
  }

  /** `participant` calls their proxy number from outside (the sandbox); the inbound leg's sid. */
  async function callIn(session: Session, position: 0 | 1): Promise<string> {
    const { identifier, proxy_identifier: proxyNumber } = session.participants[position];
    const { data, error } = await account.client.POST('/v1/sandbox/inbound-calls', {
      body: { from: identifier, to: proxyNumber },
    });
    expect(error).toBeUndefined();
    return data!.sid;
  }

  const eventsOf = (session: Session): ReceivedWebhook[] =>
    receiver.received.filter((w) => w.path === '/proxy' && w.json?.data?.session_sid === session.sid);

  /** The session's interaction events, once one says the interaction has ended (they arrive in order). */
  async function eventsUntilEnded(session: Session): Promise<{ type: string; data: Interaction }[]> {
    await receiver.waitFor(() => eventsOf(session).some((w) => w.json.data.status !== 'in-progress'));
    return eventsOf(session).map((w) => ({ type: w.json.type as string, data: w.json.data as Interaction }));
  }

  async function interactionsOf(session: Session): Promise<Interaction[]> {
    const { data } = await account.client.GET('/v1/proxy/sessions/{sid}/interactions', {
      params: { path: { sid: session.sid } },
    });
    return data!.data;
  }

  const voiceFetchesFor = (callSid: string) =>
    receiver.received.filter((w) => w.path === '/voice' && new URLSearchParams(w.body).get('CallSid') === callSid);

  it("bridges a participant's call to the other, from the other's proxy number; its interaction follows", async () => {
    const session = await openSession(outsideNumber(), outsideNumber());
    const [caller, callee] = session.participants;
    const inboundSid = await callIn(session, 0);

    const events = await eventsUntilEnded(session);
    const outboundSid = events[events.length - 1].data.outbound_sid!;
    const bridged = await finalCall(account, outboundSid);
    expect(bridged).toMatchObject({
      direction: 'outbound-dial',
      parent_call_sid: inboundSid,
      from: callee.proxy_identifier,
      to: callee.identifier,
      status: 'completed',
    });
    // An outside person on a Dial talks 5 s (call time) and hangs up.
    expect(bridged.duration).toBeGreaterThanOrEqual(5);
    const inbound = await finalCall(account, inboundSid);
    expect(inbound).toMatchObject({ from: caller.identifier, to: caller.proxy_identifier, status: 'completed' });
    expect(inbound.url).toBeNull();
    expect(voiceFetchesFor(inboundSid)).toEqual([]);

    const common = {
      session_sid: session.sid,
      type: 'call',
      from_participant_sid: caller.sid,
      to_participant_sid: callee.sid,
      body: null,
      media_url: [],
      inbound_sid: inboundSid,
    };
    expect(events.map((e) => [e.type, e.data.status, e.data.outbound_sid, e.data.duration])).toEqual([
      ['proxy.interaction.created', 'in-progress', null, null],
      ['proxy.interaction.updated', 'in-progress', outboundSid, null],
      ['proxy.interaction.updated', 'completed', outboundSid, bridged.duration],
    ]);
    for (const { data } of events) expect(data).toMatchObject({ ...common, sid: events[0].data.sid });
    expect(await interactionsOf(session)).toEqual([events[2].data]);
    expect(t.violations()).toEqual([]);
  });

  it.each([
    ['busy', BUSY],
    ['no-answer', NO_ANSWER],
  ])('ends the interaction failed when the other side is %s', async (status, number) => {
    const session = await openSession(outsideNumber(), number);
    const inboundSid = await callIn(session, 0);
    const events = await eventsUntilEnded(session);
    const outboundSid = events[1].data.outbound_sid!;
    expect((await finalCall(account, outboundSid)).status).toBe(status);
    expect(events.map((e) => [e.type, e.data.status, e.data.outbound_sid, e.data.duration])).toEqual([
      ['proxy.interaction.created', 'in-progress', null, null],
      ['proxy.interaction.updated', 'in-progress', outboundSid, null],
      ['proxy.interaction.updated', 'failed', outboundSid, 0],
    ]);
    // The caller's leg went on after its Dial, and its instructions ended there.
    expect((await finalCall(account, inboundSid)).status).toBe('completed');
    expect(t.violations()).toEqual([]);
  });

  it('ends the interaction failed when the caller hangs up while the other side still rings', async () => {
    const session = await openSession(outsideNumber(), NO_ANSWER);
    const inboundSid = await callIn(session, 0);
    // The other side rings for the Dial's 30 s (call time: 0.6 s here) while the caller hangs up.
    await waitUntil(() =>
      t.server.services.store.db
        .selectFrom('calls')
        .select('sid')
        .where('parent_call_sid', '=', inboundSid)
        .executeTakeFirst(),
    );
    const { response } = await account.client.POST('/v1/calls/{sid}', {
      params: { path: { sid: inboundSid } },
      body: { status: 'completed' },
    });
    expect(response.status).toBe(200);
    const events = await eventsUntilEnded(session);
    const outboundSid = events[1].data.outbound_sid!;
    expect((await finalCall(account, outboundSid)).status).toBe('canceled');
    expect(events.map((e) => [e.type, e.data.status, e.data.duration])).toEqual([
      ['proxy.interaction.created', 'in-progress', null],
      ['proxy.interaction.updated', 'in-progress', null],
      ['proxy.interaction.updated', 'failed', 0],
    ]);
    expect(t.violations()).toEqual([]);
  });

  it("runs the number's voice_url for a caller who is not a participant, with no interaction", async () => {
    const session = await openSession(outsideNumber(), outsideNumber());
    const { data } = await account.client.POST('/v1/sandbox/inbound-calls', {
      body: { from: outsideNumber(), to: session.participants[0].proxy_identifier },
    });
    const inbound = await finalCall(account, data!.sid);
    expect(inbound).toMatchObject({ status: 'completed', url: `${receiver.url}/voice` });
    expect(voiceFetchesFor(inbound.sid)).toHaveLength(1);
    expect(await interactionsOf(session)).toEqual([]);
    expect(eventsOf(session)).toEqual([]);
    expect(t.violations()).toEqual([]);
  });

  it('rejects a call in a message-only session, recorded as a failed interaction with nothing sent', async () => {
    const session = await openSession(outsideNumber(), outsideNumber(), 'message-only');
    const inboundSid = await callIn(session, 1);
    const inbound = await finalCall(account, inboundSid);
    expect(inbound).toMatchObject({ status: 'failed', error_code: 'rejected', url: null });
    expect(voiceFetchesFor(inboundSid)).toEqual([]);
    const events = await eventsUntilEnded(session);
    expect(events.map((e) => e.type)).toEqual(['proxy.interaction.created']);
    expect(events[0].data).toMatchObject({
      type: 'call',
      status: 'failed',
      from_participant_sid: session.participants[1].sid,
      to_participant_sid: session.participants[0].sid,
      inbound_sid: inboundSid,
      outbound_sid: null,
      duration: null,
    });
    expect(await interactionsOf(session)).toEqual([events[0].data]);
    expect(t.violations()).toEqual([]);
  });

  it('bridges nothing once the session is closed: the call runs voice_url', async () => {
    const session = await openSession(outsideNumber(), outsideNumber());
    const { response } = await account.client.DELETE('/v1/proxy/sessions/{sid}', {
      params: { path: { sid: session.sid } },
    });
    expect(response.status).toBe(204);
    const inboundSid = await callIn(session, 0);
    const inbound = await finalCall(account, inboundSid);
    expect(inbound).toMatchObject({ status: 'completed', url: `${receiver.url}/voice` });
    expect(voiceFetchesFor(inboundSid)).toHaveLength(1);
    expect(await interactionsOf(session)).toEqual([]);
    expect(t.violations()).toEqual([]);
  });

  it('bridges a call from a number held on this platform (another account) the same way', async () => {
    const other = await t.newAccount('caller');
    const callerNumber = await holdNumber(other);
    const session = await openSession(callerNumber, outsideNumber());
    const [caller, callee] = session.participants;
    const { data } = await other.client.POST('/v1/calls', {
      body: { from: callerNumber, to: caller.proxy_identifier, twiml: '<Response><Pause length="60"/></Response>' },
    });
    const events = await eventsUntilEnded(session);
    expect(events.map((e) => [e.type, e.data.status])).toEqual([
      ['proxy.interaction.created', 'in-progress'],
      ['proxy.interaction.updated', 'in-progress'],
      ['proxy.interaction.updated', 'completed'],
    ]);
    const bridged = await finalCall(account, events[2].data.outbound_sid!);
    expect(bridged).toMatchObject({ from: callee.proxy_identifier, to: callee.identifier, status: 'completed' });
    // The bridge's end ended the session's leg, which hung up the caller's call long before its Pause.
    const callersCall = await finalCall(other, data!.sid);
    expect(callersCall.status).toBe('completed');
    expect(callersCall.duration).toBeLessThan(60);
    expect(t.violations()).toEqual([]);
  });

  it('does not bridge again a bridged call that reaches a proxy number of another session (no loop)', async () => {
    const x = await t.newAccount('loop-x');
    const y = await t.newAccount('loop-y');
    const p = await holdNumber(x, { VoiceUrl: `${receiver.url}/voice` });
    const q = await holdNumber(y, { VoiceUrl: `${receiver.url}/voice` });
    const [alice, bob] = [outsideNumber(), outsideNumber()];
    const body = (first: string, second: string) => ({
      mode: 'voice-only' as const,
      callback_url: `${receiver.url}/proxy`,
      participants: [{ identifier: first }, { identifier: second }],
    });
    const xs = (await x.client.POST('/v1/proxy/sessions', { body: body(alice, q) })).data!;
    const ys = (await y.client.POST('/v1/proxy/sessions', { body: body(p, bob) })).data!;
    // Alice calls P: X's session bridges her to Q, from P. At Q that call comes from P, a participant of Y's session
    // on Q: bridged again it would go on to Bob (and two such sessions could chain calls forever).
    await x.client.POST('/v1/sandbox/inbound-calls', { body: { from: alice, to: p } });
    const events = await eventsUntilEnded(xs);
    expect(events.at(-1)!.data.status).toBe('completed');
    const { data: atQ } = await y.client.GET('/v1/calls', { params: { query: { direction: 'inbound' } } });
    expect(atQ!.data.map((c) => [c.from, c.to])).toEqual([[p, q]]);
    expect(voiceFetchesFor(atQ!.data[0].sid).length).toBeGreaterThan(0);
    const { data: yInteractions } = await y.client.GET('/v1/proxy/sessions/{sid}/interactions', {
      params: { path: { sid: ys.sid } },
    });
    expect(yInteractions!.data).toEqual([]);
    expect(t.violations()).toEqual([]);
  });

  it("slides the session's expiry to ttl after the call's interaction, and makes it in-progress", async () => {
    const ttl = 3600;
    const session = await openSession(outsideNumber(), outsideNumber(), 'voice-only', ttl);
    expect(session.status).toBe('open');
    clock.advance(20 * 60_000);
    await callIn(session, 0);
    const events = await eventsUntilEnded(session);
    const ended = events[events.length - 1].data;
    const { data: after } = await account.client.GET('/v1/proxy/sessions/{sid}', {
      params: { path: { sid: session.sid } },
    });
    expect(after!.status).toBe('in-progress');
    expect(Date.parse(after!.date_expiry!)).toBe(Date.parse(ended.date_updated) + ttl * 1000);
    expect(Date.parse(after!.date_expiry!)).toBeGreaterThan(Date.parse(session.date_expiry!) + 20 * 60_000);
    expect(t.violations()).toEqual([]);
  });
});
