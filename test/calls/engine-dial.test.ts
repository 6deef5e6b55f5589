// A `<Dial>`'s child leg: placed like any call (outbound-dial, parent_call_sid, the parent's number as caller),
// its end reported to the parent, which goes on; a number on this platform answers it with an inbound leg.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, FINAL_STATUSES, callRow, eventsOf, finalCall, holdNumber, sayThenHangup } from './support.js';
import { MAX_CHAINED_INBOUND_LEGS } from '../../server/calls/engine/engine.js';
import type { VoiceReports } from '../../server/carrier/voice.js';
import { insertCall } from '../support/calls.js';

describe.each(ENGINES)('call engine: Dial (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const dial = async (number: string) => {
    const { data } = await account.client.POST('/v1/calls', {
      body: {
        from,
        to: '+14155550150',
        twiml: `<Response><Dial>${number}</Dial><Say>After the dial</Say><Hangup/></Response>`,
        status_callback: `${receiver.url}/s`,
      },
    });
    return data!.sid;
  };
  const childOf = (sid: string) =>
    waitUntil(() =>
      t.server.services.store.db.selectFrom('calls').selectAll().where('parent_call_sid', '=', sid).executeTakeFirst(),
    );
  const finals = async (sid: string) =>
    (await eventsOf(receiver, sid)).filter((type) => FINAL_STATUSES.includes(type.slice('call.'.length)));

  it('places the child leg, which an outside person ends after 5 s; then the parent goes on', async () => {
    const sid = await dial('+14155550151');
    const parent = await finalCall(account, sid);
    expect(parent.status).toBe('completed');
    const child = await finalCall(account, (await childOf(sid)).sid);
    expect(child).toMatchObject({
      parent_call_sid: sid,
      direction: 'outbound-dial',
      from,
      to: '+14155550151',
      status: 'completed',
      answered_by: 'human',
    });
    expect(child.duration).toBeGreaterThanOrEqual(5);
    expect(parent.duration).toBeGreaterThan(child.duration!);
    expect(await finals(sid)).toEqual(['call.completed']);
  });

  it('answers 409 to instructions for the dialed side, which still ends when the other person hangs up', async () => {
    const sid = await dial('+14155550153');
    const child = await childOf(sid);
    for (const body of [{ twiml: sayThenHangup() }, { url: `${receiver.url}/never` }]) {
      const { error, response } = await account.client.POST('/v1/calls/{sid}', {
        params: { path: { sid: child.sid } },
        body,
      });
      expect(response.status).toBe(409);
      expect(error).toMatchObject({ code: 'call_not_modifiable' });
      expect(error!.detail).toContain(`the dialed side of a <Dial> of ${sid}`);
    }
    expect(await finalCall(account, child.sid)).toMatchObject({ status: 'completed' });
    expect(await finalCall(account, sid)).toMatchObject({ status: 'completed' });
  });

  it("fails a dial with from_number_released once the call's number left the account, placing nothing", async () => {
    const own = await holdNumber(account);
    const { data: call } = await account.client.POST('/v1/calls', {
      body: { from: own, to: '+14155550160', twiml: '<Response><Pause length="600"/></Response>' },
    });
    await waitUntil(async () => ((await callRow(t, call!.sid)).status === 'in-progress' ? true : undefined));
    const { data: held } = await account.client.GET('/v1/incoming-phone-numbers', {
      params: { query: { phone_number: own } },
    });
    const released = await account.client.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: held!.data[0].sid } },
    });
    expect(released.response.status).toBe(204);
    const other = await t.newAccount('next-holder');
    expect(
      (await other.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: own } })).response.status,
    ).toBe(201);
    await account.client.POST('/v1/calls/{sid}', {
      params: { path: { sid: call!.sid } },
      body: { twiml: '<Response><Dial>+14155550161</Dial><Hangup/></Response>' },
    });
    // Before, the leg rang from the number now another account's, and the person it reached answered.
    const child = await finalCall(account, (await childOf(call!.sid)).sid);
    expect(child).toMatchObject({ status: 'failed', error_code: 'from_number_released', duration: 0 });
    expect(child.answered_by).toBeNull();
    expect(await finalCall(account, call!.sid)).toMatchObject({ status: 'completed' });
  });

  it('fails a call whose number left the account between its placing and its ringing', async () => {
    const queued = { status: 'queued' as const, answered_by: null, duration: null, start_time: null, end_time: null };
    const released = await insertCall(t, account.sid, { ...queued, from_number: '+14155550177' });
    const held = await insertCall(t, account.sid, { ...queued, from_number: from });
    // The sandbox network's first report, as its job gives it.
    const network = t.server.services.callEngine as unknown as VoiceReports;
    for (const { sid } of [released, held])
      await t.server.services.store.transaction((tx) => network.callStatus(tx, { sid, status: 'ringing' }));
    expect(await callRow(t, released.sid)).toMatchObject({ status: 'failed', error_code: 'from_number_released' });
    expect(await callRow(t, held.sid)).toMatchObject({ status: 'ringing', error_code: null });
  });

  it('shows a callerId the account holds on the child leg, and its own number for any other', async () => {
    const other = await holdNumber(account);
    const foreign = await holdNumber(await t.newAccount('foreign'));
    const withCallerId = async (callerId: string) => {
      const twiml = `<Response><Dial callerId="${callerId}">+14155550152</Dial></Response>`;
      const { data } = await account.client.POST('/v1/calls', { body: { from, to: '+14155550150', twiml } });
      return (await childOf(data!.sid)).from_number;
    };
    expect(await withCallerId(other)).toBe(other);
    expect(await withCallerId(foreign)).toBe(from);
    expect(await withCallerId('+14155550199')).toBe(from);
  });

  it('goes on after a busy child leg', async () => {
    const sid = await dial('+15005550006');
    expect((await finalCall(account, sid)).status).toBe('completed');
    expect((await finalCall(account, (await childOf(sid)).sid)).status).toBe('busy');
  });

  it('bridges to an inbound leg for a number on this platform; hanging up the parent ends both', async () => {
    const holder = await t.newAccount('holder');
    receiver.answer = (request) =>
      request.path === '/voice'
        ? { status: 200, contentType: 'text/xml', body: sayThenHangup('g'.repeat(2000)) }
        : { status: 200 };
    const to = await holdNumber(holder, { VoiceUrl: `${receiver.url}/voice`, StatusCallback: `${receiver.url}/h` });
    const sid = await dial(to);
    const child = await childOf(sid);
    const inbound = await waitUntil(async () => {
      const row = await callRow(t, child.sid);
      return row.peer_sid && row.status === 'in-progress' ? callRow(t, row.peer_sid) : undefined;
    });
    expect(inbound).toMatchObject({
      direction: 'inbound',
      account_sid: holder.sid,
      from_number: from,
      to_number: to,
      peer_sid: child.sid,
    });
    const { data } = await account.client.POST('/v1/calls/{sid}', {
      params: { path: { sid } },
      body: { status: 'completed' },
    });
    expect(data!.status).toBe('completed');
    expect((await finalCall(account, child.sid)).status).toBe('completed');
    expect((await finalCall(holder, inbound.sid)).status).toBe('completed');
    expect(await finals(sid)).toEqual(['call.completed']);
    expect(await finals(inbound.sid)).toEqual(['call.completed']);
  });

  it('ends a chain of dials between numbers held here at 10 legs: dial_loop, and the first call hung up', async () => {
    // A number whose instructions dial itself, and after each dial's end fetch themselves again: without the bound,
    // every inbound leg dials the number anew, for as long as the first call lasts.
    const looping = await t.newAccount('looping');
    let number = '';
    const loop = `${receiver.url}/loop`;
    receiver.answer = (request) =>
      request.path === '/loop'
        ? {
            status: 200,
            contentType: 'text/xml',
            body: `<Response><Dial>${number}</Dial><Redirect>${loop}</Redirect></Response>`,
          }
        : { status: 200 };
    number = await holdNumber(looping, { VoiceUrl: loop });
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to: number, twiml: '<Response><Pause length="600"/></Response>' },
    });
    const db = t.server.services.store.db;
    const legsOf = () => db.selectFrom('calls').selectAll().where('account_sid', '=', looping.sid).execute();
    const stopped = await waitUntil(async () => (await legsOf()).find((leg) => leg.error_code === 'dial_loop'));
    expect(stopped).toMatchObject({ direction: 'outbound-dial', status: 'failed', to_number: number });
    expect(stopped.error_message).toContain('10 calls to numbers of this platform');
    // The call the chain started from is hung up, and with it every leg ends; none rang after the bound.
    expect(await finalCall(account, data!.sid)).toMatchObject({ status: 'completed', error_code: null });
    const legs = await waitUntil(async () => {
      const all = await legsOf();
      return all.every((leg) => FINAL_STATUSES.includes(leg.status)) ? all : undefined;
    });
    expect(legs.filter((leg) => leg.direction === 'inbound')).toHaveLength(MAX_CHAINED_INBOUND_LEGS);
    // The last inbound leg may dial again (after its Redirect) while the hang-up travels down the chain: each such
    // dial fails at once, and they stop with the chain.
    const dials = legs.filter((leg) => leg.direction === 'outbound-dial');
    expect(dials.length).toBeGreaterThanOrEqual(MAX_CHAINED_INBOUND_LEGS);
    expect(dials.filter((leg) => leg.error_code === 'dial_loop')).toHaveLength(dials.length - 9);
    expect(dials.length).toBeLessThan(5 * MAX_CHAINED_INBOUND_LEGS);
  });

  it("bridges to another account's number, whose voice_url runs; the Dial action gets the child's end", async () => {
    const holder = await t.newAccount('holder');
    receiver.answer = (request) => {
      if (request.path === '/holder-voice') return { status: 200, contentType: 'text/xml', body: sayThenHangup() };
      if (request.path === '/dialed')
        return { status: 200, contentType: 'text/xml', body: '<Response><Hangup/></Response>' };
      return { status: 200 };
    };
    const to = await holdNumber(holder, { VoiceUrl: `${receiver.url}/holder-voice` });
    const { data } = await account.client.POST('/v1/calls', {
      body: {
        from,
        to: '+14155550152',
        twiml: `<Response><Dial action="${receiver.url}/dialed"><Number>${to}</Number></Dial></Response>`,
        status_callback: `${receiver.url}/s`,
      },
    });
    const sid = data!.sid;
    expect((await finalCall(account, sid)).status).toBe('completed');
    const child = await finalCall(account, (await childOf(sid)).sid);
    expect(child).toMatchObject({ parent_call_sid: sid, direction: 'outbound-dial', to, status: 'completed' });
    const { peer_sid: inboundSid } = await callRow(t, child.sid);
    const inbound = await finalCall(holder, inboundSid!);
    expect(inbound).toMatchObject({ direction: 'inbound', from, to, status: 'completed' });
    const voice = receiver.received.find((w) => w.path === '/holder-voice')!;
    expect(new URLSearchParams(voice.body).get('CallSid')).toBe(inbound.sid);
    const dialed = await waitUntil(async () => receiver.received.find((w) => w.path === '/dialed'));
    expect(Object.fromEntries(new URLSearchParams(dialed.body))).toMatchObject({
      CallSid: sid,
      DialCallStatus: 'completed',
      DialCallSid: child.sid,
      DialCallDuration: String(child.duration),
    });
  });
});
