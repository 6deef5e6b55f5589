// Live calls changed through the engine (cancel, hang up, redirect, input), each ending with exactly one final event.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, FINAL_STATUSES, callRow, eventsOf, finalCall, holdNumber, sayThenHangup } from './support.js';

describe.each(ENGINES)('call engine: live changes (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  // 2000 characters of speech: 140 s of call time, 2.8 s at 50× speed.
  const LONG = sayThenHangup('f'.repeat(2000));
  const call = async (to: string, twiml = LONG) => {
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to, twiml, status_callback: `${receiver.url}/s` },
    });
    return data!.sid;
  };
  const reach = (sid: string, status: string) =>
    waitUntil(async () => (await callRow(t, sid)).status === status, 20_000, `${sid} ${status}`);
  const update = (sid: string, body: Record<string, string>) =>
    account.client.POST('/v1/calls/{sid}', { params: { path: { sid } }, body });
  const finals = async (sid: string) =>
    (await eventsOf(receiver, sid)).filter((type) => FINAL_STATUSES.includes(type.slice('call.'.length)));

  it('cancels a ringing call; the network ringing on changes nothing after that', async () => {
    const sid = await call('+15005550007');
    await reach(sid, 'ringing');
    const { data } = await update(sid, { status: 'canceled' });
    expect(data).toMatchObject({ status: 'canceled', duration: 0, price: 0, start_time: null });
    // The network's no-answer (after 60 s of call time) comes and is ignored.
    await waitUntil(async () => {
      const pending = await t.server.services.store.db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', 'sandbox.call')
        .where('payload', 'like', `%${sid}%`)
        .execute();
      return pending.length === 0;
    });
    expect(await eventsOf(receiver, sid)).toEqual(['call.initiated', 'call.ringing', 'call.canceled']);
    expect((await finalCall(account, sid)).status).toBe('canceled');
  });

  it('hangs up an answered call with completed, refuses canceled on it and any change once ended', async () => {
    const sid = await call('+14155550141');
    await reach(sid, 'in-progress');
    const refused = await update(sid, { status: 'canceled' });
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({ code: 'call_not_modifiable' });
    const { data } = await update(sid, { status: 'completed' });
    expect(data!.status).toBe('completed');
    expect(data!.duration).toBeLessThan(140);
    expect((await update(sid, { status: 'completed' })).response.status).toBe(409);
    expect(await finals(sid)).toEqual(['call.completed']);
  });

  it('redirects an answered call to new inline instructions at once', async () => {
    const sid = await call('+14155550142');
    await reach(sid, 'in-progress');
    const { data } = await update(sid, { twiml: sayThenHangup('Goodbye') });
    expect(data!.status).toBe('in-progress');
    const final = await finalCall(account, sid);
    expect(final.status).toBe('completed');
    expect(final.duration).toBeLessThan(140);
    expect(await finals(sid)).toEqual(['call.completed']);
  });

  it('takes input only on an answered call', async () => {
    const ringing = await call('+15005550007');
    await reach(ringing, 'ringing');
    const early = await account.client.POST('/v1/sandbox/calls/{sid}/input', {
      params: { path: { sid: ringing } },
      body: { digits: '12#' },
    });
    expect(early.response.status).toBe(409);
    await update(ringing, { status: 'canceled' });
    const sid = await call('+14155550143');
    await reach(sid, 'in-progress');
    const heard = await account.client.POST('/v1/sandbox/calls/{sid}/input', {
      params: { path: { sid } },
      body: { speech: 'hello' },
    });
    expect(heard.data!.status).toBe('in-progress');
    await update(sid, { status: 'completed' });
  });

  it('hanging up one leg of two on this platform hangs up the other, one final event each', async () => {
    const holder = await t.newAccount('holder');
    receiver.answer = (request) =>
      request.path === '/voice' ? { status: 200, contentType: 'text/xml', body: LONG } : { status: 200 };
    const to = await holdNumber(holder, { VoiceUrl: `${receiver.url}/voice`, StatusCallback: `${receiver.url}/h` });
    const sid = await call(to);
    await reach(sid, 'in-progress');
    const { peer_sid: peer } = await callRow(t, sid);
    await update(sid, { status: 'completed' });
    expect((await finalCall(holder, peer!)).status).toBe('completed');
    expect(await finals(sid)).toEqual(['call.completed']);
    expect(await finals(peer!)).toEqual(['call.completed']);
  });

  it('redirects an answered call to a new url at once: the Say stops and the new url is fetched', async () => {
    receiver.answer = (request) =>
      request.path === '/next'
        ? { status: 200, contentType: 'text/xml', body: sayThenHangup('Moved') }
        : { status: 200 };
    const sid = await call('+14155550144');
    await reach(sid, 'in-progress');
    const { data } = await update(sid, { url: `${receiver.url}/next`, method: 'POST' });
    expect(data).toMatchObject({ status: 'in-progress', url: `${receiver.url}/next` });
    const fetched = await waitUntil(async () => receiver.received.find((w) => w.path === '/next'));
    expect(Object.fromEntries(new URLSearchParams(fetched.body))).toMatchObject({
      CallSid: sid,
      CallStatus: 'in-progress',
    });
    const final = await finalCall(account, sid);
    expect(final.status).toBe('completed');
    expect(final.duration).toBeLessThan(140);
    expect(await finals(sid)).toEqual(['call.completed']);
  });
});
