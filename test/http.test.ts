import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from './support/server.js';
import { callWithExample, v1Operations } from './support/spec-operations.js';
import { handlers } from '../server/routes/index.js';
import { CROWDED_REQUESTS, crowdedWithin } from '../server/http/request-context.js';
import { waitUntil } from './support/wait.js';

describe.each(ENGINES)('HTTP conventions (%s)', (engine) => {
  const t = useTestServer({ engine });
  const auth = () => ({ authorization: `Bearer ${t.account.apiKey}` });
  const postMessage = (contentType: string, body: string) =>
    fetch(`${t.url}/v1/messages`, { method: 'POST', headers: { ...auth(), 'content-type': contentType }, body });

  async function expectProblem(res: Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body: any = await res.json();
    expect(body).toMatchObject({ status, code, type: `/problems/${code}` });
    expect(typeof body.title).toBe('string');
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
    return body;
  }

  it('answers malformed JSON with a 400 problem', async () => {
    const res = await postMessage('application/json', '{"to": ');
    await expectProblem(res, 400, 'invalid_json');
  });

  it('answers an unsupported content type with a 415 problem', async () => {
    const res = await postMessage('text/plain', 'hello');
    await expectProblem(res, 415, 'unsupported_media_type');
  });

  it('answers a body over 1 MB with a 413 problem', async () => {
    const res = await postMessage('application/json', JSON.stringify({ body: 'x'.repeat(1_100_000) }));
    await expectProblem(res, 413, 'payload_too_large');
  });

  it('answers an unknown route with a 404 problem, inside and outside /v1', async () => {
    await expectProblem(await fetch(`${t.url}/v1/nothing-here`, { headers: auth() }), 404, 'not_found');
    await expectProblem(await fetch(`${t.url}/nothing-here`), 404, 'not_found');
  });

  it('answers an empty trailing path parameter with a 400 naming it, not a 404', async () => {
    const body = await expectProblem(await fetch(`${t.url}/v1/verify/`, { headers: auth() }), 400, 'invalid_request');
    expect(body.errors).toEqual([{ field: 'sid', message: 'must not be empty' }]);
    // A path whose parent is an operation of its own is that operation, not an empty parameter.
    expect((await fetch(`${t.url}/v1/messages/`, { headers: auth() })).status).toBe(200);
  });

  it('answers a wrong method with a 405 problem and an Allow header', async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{}',
    });
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toMatch(/GET|POST/i);
  });

  it('lists every bad field of a JSON body', async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'nope', validity_period: 'soon', surprise: true }),
    });
    const body = await expectProblem(res, 400, 'invalid_request');
    const fields = body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['from', 'to', 'validity_period', 'surprise']));
  });

  it('validates form bodies with the same schema, with numbers coerced from text', async () => {
    const form = new URLSearchParams({ from: '+14155550100', to: '+14155550101', body: 'hi', validity_period: 'abc' });
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const body = await expectProblem(res, 400, 'invalid_request');
    expect(body.errors).toEqual([expect.objectContaining({ field: 'validity_period' })]);
  });

  it('does not coerce JSON strings into numbers', async () => {
    const res = await fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ from: '+14155550100', to: '+14155550101', body: 'hi', validity_period: '60' }),
    });
    const body = await expectProblem(res, 400, 'invalid_request');
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual(['validity_period']);
  });

  it('rejects a query parameter out of range, naming it', async () => {
    const res = await fetch(`${t.url}/v1/messages?page_size=5000`, { headers: auth() });
    const body = await expectProblem(res, 400, 'invalid_request');
    expect(body.errors[0].field).toBe('page_size');
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const echoed = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': 'req-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('req-abc.123');
    const made = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  const unbuilt = v1Operations().filter((op) => !handlers[op.operationId]);
  it.runIf(unbuilt.length > 0)('answers 501 not_implemented for operations not built yet', async () => {
    for (const op of unbuilt) {
      // A valid request for each: GETs and DELETEs on well-formed sids; POST bodies from the spec examples.
      const res = await callWithExample(t.url, op, auth());
      await expectProblem(res, 501, 'not_implemented');
    }
  });
});

describe('the API crowd signal background jobs yield to', () => {
  const t = useTestServer({ engine: 'sqlite' });

  /** Opens a request that stays in flight: its headers (with a key, so its body is awaited) come, its body never. */
  async function openRequest(): Promise<net.Socket> {
    const { port } = new URL(t.directUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n' +
        `Authorization: Bearer ${t.account.apiKey}\r\n\r\n`,
    );
    return socket;
  }

  it('is seen from CROWDED_REQUESTS requests in flight at once, and only for the window asked about', async () => {
    // The signal is the process's: a test file run before this one in the same worker may have crowded it moments
    // ago, so the windows asked about start with this test.
    const started = performance.now();
    const sinceStart = () => performance.now() - started;
    const sockets: net.Socket[] = [];
    try {
      for (let n = 0; n < CROWDED_REQUESTS - 1; n++) sockets.push(await openRequest());
      await new Promise((r) => setTimeout(r, 100));
      expect(crowdedWithin(sinceStart())).toBe(false);

      sockets.push(await openRequest());
      await waitUntil(async () => crowdedWithin(sinceStart()), 2000);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    // Seen a moment ago, not longer: a window of 50 ms no longer counts it once 50 ms have passed.
    await new Promise((r) => setTimeout(r, 80));
    expect(crowdedWithin(sinceStart())).toBe(true);
    expect(crowdedWithin(50)).toBe(false);
  });
});
