// An instruction server that fails a call in each way it can (down, slow, garbage, HTTP 500, a redirect loop): the
// call ends `failed` with its error_code and a readable error_message, carried by exactly one final event.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { freePort } from '../support/prism.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { FAST_CALLS, eventsOf, finalCall } from './support.js';

const FETCH_TIMEOUT_MS = 300;

describe.each(ENGINES)('call engine: an instruction server that fails (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_CALLS, CALL_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS) } });
  const app = useReceiver();
  const events = useReceiver();
  let account: TestAccount;
  let from: string;
  let closedPort: number;
  beforeAll(async () => {
    ({ account, from } = await accountWithNumber(t));
    closedPort = await freePort();
    app.answer = (request) => {
      if (request.path === '/slow') return { status: 200, contentType: 'text/xml', body: '<Response/>', delayMs: 3000 };
      if (request.path === '/garbage') return { status: 200, contentType: 'text/xml', body: 'certainly not XML <<' };
      if (request.path === '/json') return { status: 200, contentType: 'application/json', body: '{"say":"hi"}' };
      if (request.path === '/error') return { status: 500, body: 'Internal Server Error' };
      if (request.path === '/loop') return { status: 200, contentType: 'text/xml', body: redirectTo('/loop') };
      return { status: 404 };
    };
  });
  const redirectTo = (path: string) => `<Response><Redirect>${app.url}${path}</Redirect></Response>`;

  /** Places a call to the url, waits for its end, and checks its one final event carries the same reason. */
  const failedCall = async (url: string) => {
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', url, status_callback: `${events.url}/events` },
    });
    const call = await finalCall(account, data!.sid);
    expect(await eventsOf(events, call.sid)).toEqual([
      'call.initiated',
      'call.ringing',
      'call.answered',
      'call.failed',
    ]);
    const final = events.received.find((w) => w.json?.type === 'call.failed' && w.json.data.sid === call.sid)!;
    expect(final.json.data).toMatchObject({
      status: 'failed',
      error_code: call.error_code,
      error_message: call.error_message,
    });
    return call;
  };

  it('ends a call whose instruction server is down (a closed port) failed: instructions_fetch_failed', async () => {
    const call = await failedCall(`http://127.0.0.1:${closedPort}/voice`);
    expect(call).toMatchObject({ status: 'failed', error_code: 'instructions_fetch_failed' });
    expect(call.error_message).toContain(`POST http://127.0.0.1:${closedPort}/voice`);
  });

  it('ends a call whose instruction server is slower than CALL_FETCH_TIMEOUT_MS failed', async () => {
    const call = await failedCall(`${app.url}/slow`);
    expect(call).toMatchObject({ status: 'failed', error_code: 'instructions_fetch_failed' });
    expect(call.error_message).toMatch(/timed out/);
  });

  it('ends a call whose instruction server answers garbage as XML failed: invalid_instructions', async () => {
    const call = await failedCall(`${app.url}/garbage`);
    expect(call).toMatchObject({ status: 'failed', error_code: 'invalid_instructions' });
    expect(call.error_message).toContain(`the document from ${app.url}/garbage is not valid TwiML`);
  });

  it('ends a call whose instruction server answers JSON failed: instructions_fetch_failed', async () => {
    const call = await failedCall(`${app.url}/json`);
    expect(call).toMatchObject({ status: 'failed', error_code: 'instructions_fetch_failed' });
    expect(call.error_message).toContain('"application/json", not TwiML');
  });

  it('ends a call whose instruction server answers HTTP 500 failed: instructions_fetch_failed', async () => {
    const call = await failedCall(`${app.url}/error`);
    expect(call).toMatchObject({ status: 'failed', error_code: 'instructions_fetch_failed' });
    expect(call.error_message).toBe(`POST ${app.url}/error answered HTTP 500`);
  });

  it('ends a call whose document redirects to itself failed: instruction_loop, after 100 documents', async () => {
    const call = await failedCall(`${app.url}/loop`);
    expect(call).toMatchObject({ status: 'failed', error_code: 'instruction_loop' });
    expect(call.error_message).toMatch(/More than 100 instruction documents/);
    expect(app.all.filter((r) => r.path === '/loop')).toHaveLength(100);
  });
});
