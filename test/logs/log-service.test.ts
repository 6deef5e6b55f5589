// The logs' reads: lists newest first, filtered and paged both ways; a record's timeline; its webhook deliveries
// with every attempt (status, latency, the answer's first bytes); "retry now" for a given-up event.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { timeline } from '../../server/logs/service.js';

describe.each(ENGINES)('logs (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, WEBHOOK_MAX_ATTEMPTS: '2' } });
  const receiver = useReceiver();
  const logs = () => t.server.services.logs;

  it('lists messages newest first, filtered, and pages forward and back by token', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const sids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const to = i % 2 ? '+14155550111' : '+14155550122';
      const { data } = await account.client.POST('/v1/messages', { body: { from, to, body: `m${i}` } });
      sids.push(data!.sid);
    }
    const newestFirst = [...sids].reverse();
    const first = await logs().messages(account.sid, {}, { page_size: 3 });
    expect(first.data.map((m) => m.sid)).toEqual(newestFirst.slice(0, 3));
    expect(first.previous_page_token).toBeNull();
    const second = await logs().messages(account.sid, {}, { page_size: 3, page_token: first.next_page_token! });
    expect(second.data.map((m) => m.sid)).toEqual(newestFirst.slice(3, 6));
    const third = await logs().messages(account.sid, {}, { page_size: 3, page_token: second.next_page_token! });
    expect(third.data.map((m) => m.sid)).toEqual(newestFirst.slice(6));
    expect(third.next_page_token).toBeNull();
    const back = await logs().messages(account.sid, {}, { page_size: 3, before: third.previous_page_token! });
    expect(back.data.map((m) => m.sid)).toEqual(newestFirst.slice(3, 6));
    const top = await logs().messages(account.sid, {}, { page_size: 3, before: back.previous_page_token! });
    expect(top.data.map((m) => m.sid)).toEqual(newestFirst.slice(0, 3));
    expect(top.previous_page_token).toBeNull();

    const toOne = await logs().messages(account.sid, { to: '+14155550111' }, {});
    expect(toOne.data.map((m) => m.sid)).toEqual(newestFirst.filter((_, k) => k % 2 === 1));
    const other = await t.newAccount();
    expect((await logs().messages(other.sid, {}, {})).data).toEqual([]);
    await expect(logs().messages(account.sid, { status: 'bogus' }, {})).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('shows every attempt of a delivery (500 then 200) with latency and the first bytes of each answer', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    let calls = 0;
    receiver.answer = (r) =>
      r.path === '/flaky'
        ? calls++ === 0
          ? { status: 500, body: 'x'.repeat(600) }
          : { status: 200, body: 'ok' }
        : { status: 200 };
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'hi', status_callback: `${receiver.url}/flaky` },
    });
    const sid = data!.sid;
    await waitForStatus(account.client, sid, 'delivered');
    await receiver.waitFor((r) => r.filter((w) => w.path === '/flaky').length === 3);
    const events = await logs().deliveries(account.sid, [sid]);
    expect(events.map((e) => e.type)).toEqual(['message.sending', 'message.sent', 'message.delivered']);
    const [firstEvent] = events;
    expect(firstEvent.status).toBe('delivered');
    expect(firstEvent.attempt_log.map((a) => a.response_status)).toEqual([500, 200]);
    expect(firstEvent.attempt_log[0].response_excerpt).toBe('x'.repeat(512));
    expect(firstEvent.attempt_log[1].response_excerpt).toBe('ok');
    for (const a of firstEvent.attempt_log) expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    expect(await logs().deliveries((await t.newAccount()).sid, [sid])).toEqual([]);

    const message = (await account.client.GET('/v1/messages/{sid}', { params: { path: { sid } } })).data!;
    expect(timeline(message, 'queued', events).map((e) => e.status)).toEqual([
      'queued',
      'sending',
      'sent',
      'delivered',
    ]);
  });

  it('retries a given-up event once more on "retry now", for its own account only', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    receiver.answer = (r) => (r.path === '/down' ? { status: 503, body: 'down' } : { status: 200 });
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'hi', status_callback: `${receiver.url}/down` },
    });
    const sid = data!.sid;
    const givenUp = async () => (await logs().deliveries(account.sid, [sid]))[0];
    await waitUntil(async () => (await givenUp()).status === 'failed', 20_000, 'the event to be given up');
    expect((await givenUp()).attempt_log).toHaveLength(2);

    const other = await t.newAccount();
    expect(await logs().retryNow(other.sid, (await givenUp()).id)).toBe(false);
    expect(await logs().retryNow(account.sid, (await givenUp()).id)).toBe(true);
    await waitUntil(async () => {
      const event = await givenUp();
      return event.attempt_log.length === 3 && event.status === 'failed';
    });
    expect((await givenUp()).attempt_log.map((a) => [a.attempt, a.response_status])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
    ]);
    // Given up again (failed, not pending): one more attempt, not a new series of them.
    // Only a given-up event can be retried.
    receiver.answer = () => ({ status: 200 });
    expect(await logs().retryNow(account.sid, 'msg_00000000000000000000000000000000')).toBe(false);
  });
});
