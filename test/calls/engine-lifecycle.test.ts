// A call leg's lifecycle on the sandbox network: each magic number's course and status events, in order, with
// exactly one final event; status_callback_event; duration and price; time_limit.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { FAST_CALLS, FINAL_STATUSES, eventsOf, finalCall, sayThenHangup } from './support.js';

describe.each(ENGINES)('call engine: lifecycle (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const call = async (to: string, extra: Record<string, unknown> = {}) => {
    const { data, error } = await account.client.POST('/v1/calls', {
      body: { from, to, twiml: sayThenHangup(), status_callback: `${receiver.url}/status`, ...extra },
    });
    if (!data) throw new Error(JSON.stringify(error));
    expect(data.status).toBe('queued');
    return data.sid;
  };

  it.each([
    ['+15005550001', 'failed', 'invalid_destination', null, ['initiated', 'failed']],
    ['+15005550006', 'busy', null, null, ['initiated', 'ringing', 'busy']],
    ['+15005550007', 'no-answer', null, null, ['initiated', 'ringing', 'no-answer']],
    ['+15005550008', 'completed', null, 'human', ['initiated', 'ringing', 'answered', 'completed']],
    ['+15005550009', 'completed', null, 'human', ['initiated', 'ringing', 'answered', 'completed']],
    ['+15005550010', 'completed', null, 'machine_start', ['initiated', 'ringing', 'answered', 'completed']],
    ['+14155550123', 'completed', null, 'human', ['initiated', 'ringing', 'answered', 'completed']],
    ['+1999000111', 'failed', 'invalid_destination', null, ['initiated', 'failed']],
  ])(
    'a call to %s ends %s (error %s, answered by %s) with its events in order',
    async (to, status, code, by, events) => {
      const sid = await call(to, { timeout: 5 });
      const final = await finalCall(account, sid);
      expect(final).toMatchObject({ status, error_code: code, answered_by: by, price_unit: 'USD' });
      expect(final.error_message === null).toBe(code === null);
      expect(final.end_time).not.toBeNull();
      expect(final.start_time === null).toBe(by === null);
      if (by === null) expect(final).toMatchObject({ duration: 0, price: 0 });
      expect(await eventsOf(receiver, sid)).toEqual(events.map((e) => `call.${e}`));
    },
  );

  it('sends only the events status_callback_event selects; completed stands for every final event', async () => {
    const answered = await call('+14155550124', { status_callback_event: ['answered', 'completed'] });
    const busy = await call('+15005550006', { status_callback_event: ['completed'] });
    const ringing = await call('+15005550006', { status_callback_event: ['ringing'] });
    await Promise.all([answered, busy, ringing].map((sid) => finalCall(account, sid)));
    expect(await eventsOf(receiver, answered)).toEqual(['call.answered', 'call.completed']);
    expect(await eventsOf(receiver, busy)).toEqual(['call.busy']);
    // No final event is selected: wait for a later call's events, which are recorded after it ended.
    const marker = await call('+15005550001');
    await eventsOf(receiver, marker);
    expect(receiver.received.filter((w) => w.json?.data?.sid === ringing).map((w) => w.json.type)).toEqual([
      'call.ringing',
    ]);
  });

  it('charges per started minute of the whole seconds of call time between answer and hang-up', async () => {
    // 900 characters of speech last 63 s of call time (70 ms a character).
    const sid = await call('+14155550125', { twiml: sayThenHangup('a'.repeat(900)) });
    const final = await finalCall(account, sid);
    expect(final.status).toBe('completed');
    // The machine's own call time: the speech, plus the moment its start was run after the answer (a job's latency,
    // 50 times longer in call time), whatever later latency the clock shows between the answer and the hang-up.
    expect(final.duration).toBeGreaterThanOrEqual(63);
    expect(final.duration).toBeLessThanOrEqual(66);
    expect(final.price).toBe(0.028);
    const seconds = (Date.parse(final.end_time!) - Date.parse(final.start_time!)) / 1000;
    // Played 50 times faster: the clock's span is the call time divided by 50, or a little more when jobs run late.
    expect(Math.ceil(seconds * 50)).toBeGreaterThanOrEqual(final.duration!);
  });

  it('hangs up an answered call at its time_limit, with one completed event', async () => {
    const sid = await call('+14155550126', { twiml: sayThenHangup('b'.repeat(900)), time_limit: 3 });
    const final = await finalCall(account, sid);
    expect(final.status).toBe('completed');
    expect(final.duration).toBeGreaterThanOrEqual(3);
    expect(final.duration).toBeLessThan(20);
    const events = await eventsOf(receiver, sid);
    expect(events.filter((e) => FINAL_STATUSES.includes(e.slice(5)))).toEqual(['call.completed']);
  });
});
