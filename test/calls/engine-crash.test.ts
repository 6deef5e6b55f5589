// The server SIGKILLed with calls live, then restarted on the same database: every call ends, each with exactly
// one final event; a call whose instructions fetch was in flight in the dead instance ends `failed`
// (call_interrupted) once that job's lease is over, the others resume.
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/server.js';
import { killableServer, useCleanups } from '../support/killable.js';
import { waitUntil } from '../support/wait.js';
import { SHORT_LEASE } from '../support/lease.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { FAST_CALLS, FINAL_STATUSES, holdNumber, sayThenHangup } from './support.js';

const API_KEY = 'tk_call_crash_test_key_0123456789ab';
const SPOKEN = 12;
const FETCHING = 4;

describe.each(ENGINES)('a server killed with calls live (%s)', (engine) => {
  const cleanups = useCleanups();

  it('ends every call with one final event after a restart', { timeout: 120_000 }, async () => {
    // A short lease: the fetches the killed instance held are claimed again 15 s later. Their timeout (10 s) outlasts
    // the time from their start to the kill, so they are still in flight when the server dies: 5 s left a loaded
    // machine's spread between the four fetches, the wait's polls and the kill a margin of a few seconds only.
    const server = await killableServer(
      engine,
      API_KEY,
      { ...FAST_CALLS, ...SHORT_LEASE, CALL_FETCH_TIMEOUT_MS: '10000', JOB_LEASE_MS: '15000' },
      cleanups,
    );
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    // The instructions server answers after 30 s: the fetch is still in flight when the server is killed.
    receiver.answer = (request) => (request.path === '/slow' ? { status: 200, delayMs: 30_000 } : { status: 200 });
    await server.start();
    const { client } = server;
    const from = await holdNumber({ client });
    const place = async (i: number, instructions: { twiml: string } | { url: string }) => {
      const to = `+1415555${String(1000 + i)}`;
      const { data } = await client.POST('/v1/calls', {
        body: { from, to, status_callback: `${receiver.url}/events`, ...instructions },
      });
      return data!.sid;
    };
    // 2000 characters of speech: 140 s of call time, 2.8 s at 50× speed.
    const spoken = await Promise.all(
      Array.from({ length: SPOKEN }, (_, i) => place(i, { twiml: sayThenHangup('h'.repeat(2000)) })),
    );
    const fetching = await Promise.all(
      Array.from({ length: FETCHING }, (_, i) => place(SPOKEN + i, { url: `${receiver.url}/slow` })),
    );
    await waitUntil(async () => receiver.all.filter((r) => r.path === '/slow').length === FETCHING, 20_000);
    await server.kill();

    await server.start();
    const final = async (sid: string) =>
      waitUntil(
        async () => {
          const { data } = await client.GET('/v1/calls/{sid}', { params: { path: { sid } } });
          return data && FINAL_STATUSES.includes(data.status) ? data : undefined;
        },
        60_000,
        `${sid} to end`,
      );
    for (const sid of spoken) expect((await final(sid)).status).toBe('completed');
    for (const sid of fetching)
      expect(await final(sid)).toMatchObject({ status: 'failed', error_code: 'call_interrupted' });
    // Deliveries are at least once: a final event the dead instance was sending may arrive twice, by its id.
    for (const sid of [...spoken, ...fetching]) {
      const finals = () =>
        new Set(
          receiver.received
            .filter((w) => w.json?.data?.sid === sid && FINAL_STATUSES.includes(w.json.type.slice('call.'.length)))
            .map((w) => w.headers['webhook-id']),
        );
      await waitUntil(async () => finals().size > 0, 30_000, `${sid}'s final event`);
      expect(finals().size).toBe(1);
    }
  });
});
