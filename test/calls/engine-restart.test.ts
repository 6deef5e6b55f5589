// Calls survive their server: after a restart every live call resumes and ends with exactly one final event; a job
// of a call claimed again after the instance running it died ends that call `failed` (call_interrupted).
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, FINAL_STATUSES, callRow, eventsOf, finalCall, sayThenHangup } from './support.js';

describe.each(ENGINES)('call engine: restarts (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  // 2000 characters of speech: 140 s of call time, 2.8 s at 50× speed.
  const longCall = async (to: string) => {
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to, twiml: sayThenHangup('e'.repeat(2000)), status_callback: `${receiver.url}/s` },
    });
    return data!.sid;
  };
  const finalEvents = async (sid: string) =>
    (await eventsOf(receiver, sid)).filter((type) => FINAL_STATUSES.includes(type.slice('call.'.length)));

  it('resumes every live call after a restart, each ending with one final event', async () => {
    const sids = await Promise.all(['+14155550131', '+14155550132', '+15005550007', '+14155550133'].map(longCall));
    // Every call live (ringing or answered) before the restart; under load the last may still be queued a moment.
    await waitUntil(async () => (await callRow(t, sids[0])).status === 'in-progress');
    await waitUntil(async () => {
      const statuses = await Promise.all(sids.map(async (sid) => (await callRow(t, sid)).status));
      return statuses.every((status) => ['ringing', 'in-progress'].includes(status));
    });
    await t.restart();
    for (const sid of sids) {
      const final = await finalCall(account, sid);
      expect(final.status).toBe(sid === sids[2] ? 'no-answer' : 'completed');
      expect(await finalEvents(sid)).toEqual([`call.${final.status}`]);
    }
  });

  it('ends a live call failed (call_interrupted) when its job is claimed again after its instance died', async () => {
    const sid = await longCall('+14155550134');
    const live = await waitUntil(async () => {
      const row = await callRow(t, sid);
      return row.status === 'in-progress' ? row : undefined;
    });
    // What a dead instance leaves: the call's next run claimed once, its lease over, never finished.
    await sql`update jobs set claims = 1, locked_by = 'w-dead', locked_until = '2000-01-01T00:00:00.000Z',
      run_at = '2000-01-01T00:00:00.000Z' where kind = 'call.run' and payload like ${`%"step":${live.step}%`}
      and payload like ${`%${sid}%`}`.execute(t.server.services.store.db);
    const final = await finalCall(account, sid);
    expect(final).toMatchObject({
      status: 'failed',
      error_code: 'call_interrupted',
      error_message: 'The server running this call stopped while it was live.',
    });
    expect(final.duration).toBeLessThan(140);
    expect(await finalEvents(sid)).toEqual(['call.failed']);
  });
});
