// Calls answered on this platform: a call to a number an account holds is answered by an inbound leg for its
// holder (both at once, linked as peers), which runs the number's voice_url, or a spoken notice without one.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, callRow, eventsOf, finalCall, holdNumber, sayThenHangup } from './support.js';

describe.each(ENGINES)('call engine: inbound legs (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const receiver = useReceiver();
  let caller: TestAccount;
  let from: string;
  beforeAll(async () => {
    ({ account: caller, from } = await accountWithNumber(t));
    receiver.answer = (request) =>
      request.path.startsWith('/voice')
        ? { status: 200, contentType: 'text/xml', body: sayThenHangup('Thanks for calling') }
        : { status: 200 };
  });

  it('answers to_number_not_owned, not a 500, for a number released between the check and the call', async () => {
    // The sandbox's inbound call checks the number is the account's, then the engine reads it again to ring it:
    // a release committed between the two (PostgreSQL reads each statement anew) leaves no number to ring.
    const engineOf = t.server.services.callEngine;
    const ringing = t.server.services.store.transaction((tx) => engineOf.receive(tx, '+15005550003', '+14155550188'));
    await expect(ringing).rejects.toMatchObject({ code: 'to_number_not_owned', status: 422 });
  });

  it('answers a call to a held number with an inbound leg for its holder, a notice without voice_url', async () => {
    const holder = await t.newAccount('holder');
    const to = await holdNumber(holder, { StatusCallback: `${receiver.url}/holder` });
    const { data } = await caller.client.POST('/v1/calls', {
      body: { from, to, twiml: sayThenHangup('c'.repeat(2000)), status_callback: `${receiver.url}/caller` },
    });
    const outbound = await finalCall(caller, data!.sid);
    // The holder's leg hung up after its notice (about 4 s), which ended the caller's Say of 140 s too.
    expect(outbound).toMatchObject({ status: 'completed', answered_by: null });
    expect(outbound.duration).toBeLessThan(100);
    const { peer_sid: peerSid } = await callRow(t, outbound.sid);
    const inbound = await finalCall(holder, peerSid!);
    expect(inbound).toMatchObject({
      account_sid: holder.sid,
      direction: 'inbound',
      from,
      to,
      status: 'completed',
      answered_by: null,
      url: null,
      start_time: outbound.start_time,
    });
    expect((await callRow(t, inbound.sid)).peer_sid).toBe(outbound.sid);
    // One started minute each: the caller's at the US outbound rate, the holder's at the inbound rate.
    expect([outbound.price, inbound.price]).toEqual([0.014, 0.0085]);
    expect(await eventsOf(receiver, outbound.sid)).toEqual([
      'call.initiated',
      'call.ringing',
      'call.answered',
      'call.completed',
    ]);
    expect(await eventsOf(receiver, inbound.sid)).toEqual(['call.ringing', 'call.answered', 'call.completed']);
    expect(receiver.received.find((w) => w.json?.data?.sid === inbound.sid)!.path).toBe('/holder');
  });

  it("runs an injected inbound call's voice_url, fetched with Twilio's parameters", async () => {
    const holder = await t.newAccount('holder');
    const to = await holdNumber(holder, { VoiceUrl: `${receiver.url}/voice/${holder.sid}` });
    const { data, response } = await holder.client.POST('/v1/sandbox/inbound-calls', {
      body: { from: '+14155550199', to },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ status: 'ringing', direction: 'inbound', from: '+14155550199', to });
    const final = await finalCall(holder, data!.sid);
    expect(final).toMatchObject({ status: 'completed', answered_by: null, url: `${receiver.url}/voice/${holder.sid}` });
    const fetched = await waitUntil(async () => receiver.received.find((w) => w.path === `/voice/${holder.sid}`));
    expect(Object.fromEntries(new URLSearchParams(fetched.body))).toEqual({
      CallSid: data!.sid,
      AccountSid: holder.sid,
      From: '+14155550199',
      To: to,
      CallStatus: 'in-progress',
      Direction: 'inbound',
      ApiVersion: '2010-04-01',
    });
  });

  it("fetches an injected inbound call's voice_url with voice_method GET, the parameters in the query", async () => {
    const holder = await t.newAccount('holder');
    const to = await holdNumber(holder, { VoiceUrl: `${receiver.url}/voice/get/${holder.sid}`, VoiceMethod: 'GET' });
    const { data } = await holder.client.POST('/v1/sandbox/inbound-calls', { body: { from: '+14155550198', to } });
    expect(await finalCall(holder, data!.sid)).toMatchObject({ status: 'completed', method: 'GET' });
    const fetched = await waitUntil(async () =>
      receiver.received.find((w) => w.path.startsWith(`/voice/get/${holder.sid}?`)),
    );
    expect(fetched.body).toBe('');
    expect(Object.fromEntries(new URL(fetched.path, receiver.url).searchParams)).toMatchObject({
      CallSid: data!.sid,
      From: '+14155550198',
      To: to,
      Direction: 'inbound',
    });
  });

  it('answers an injected inbound call to a number without voice_url with the spoken notice, then ends', async () => {
    const holder = await t.newAccount('holder');
    const to = await holdNumber(holder, { StatusCallback: `${receiver.url}/notice` });
    const { data } = await holder.client.POST('/v1/sandbox/inbound-calls', { body: { from: '+14155550197', to } });
    const final = await finalCall(holder, data!.sid);
    expect(final).toMatchObject({ status: 'completed', url: null, error_code: null });
    // The notice is a few seconds of speech: the call lasts that long, not zero and not forever.
    expect(final.duration).toBeGreaterThanOrEqual(2);
    expect(final.duration).toBeLessThan(30);
    expect(await eventsOf(receiver, data!.sid)).toEqual(['call.ringing', 'call.answered', 'call.completed']);
  });
});
