// Requests Node's HTTP parser refuses before Express sees them answer a problem+json too, on a connection that
// then closes; the loopback server is spoken to over a raw socket, since no client sends such requests.
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../server/errors.js';
import { clientErrorProblem } from '../../server/http/client-error.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { rawRequest } from '../support/raw-http.js';

const CASES = [
  {
    name: 'headers over 16 KB',
    request: `GET /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'x'.repeat(17_000)}\r\n\r\n`,
    status: 431,
    code: 'headers_too_large',
    detail: 'The request headers are larger than 16 KB.',
  },
  {
    name: 'a Content-Length that is not a number',
    request: 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    detail: 'The Content-Length header is not a valid length.',
  },
  {
    name: 'both Content-Length and chunked framing',
    request: 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    detail: 'The Transfer-Encoding header is not valid, or comes with a Content-Length.',
  },
  {
    name: 'a malformed request line',
    request: 'GET\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    detail: expect.stringMatching(/^The request (line|is not valid HTTP\/1\.1)/),
  },
];

describe.each(ENGINES)("Node's own refusals of a request (%s)", (engine) => {
  const t = useTestServer({ engine });

  it.each(CASES)('answers $name with a $status $code problem and closes the connection', async (c) => {
    const res = await rawRequest(t.directUrl, [c.request]);
    expect(res.status).toBe(c.status);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({
      type: `/problems/${c.code}`,
      title: CATALOGUE[c.code as keyof typeof CATALOGUE].title,
      status: c.status,
      detail: c.detail,
      code: c.code,
      request_id: res.headers['x-request-id'],
    });
  });

  it('answers a chunk size that is not hexadecimal with a 400 invalid_request problem, with a key', async () => {
    // Without a key the 401 goes out before the body is parsed at all (see auth-before-body.test.ts).
    const head = `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.account.apiKey}\r\n`;
    const res = await rawRequest(t.directUrl, [`${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n`]);
    expect({ status: res.status, connection: res.headers.connection, problem: JSON.parse(res.body) }).toMatchObject({
      status: 400,
      connection: 'close',
      problem: { code: 'invalid_request', detail: 'A chunk size of the chunked body is not valid.' },
    });
  });

  it('answers a body cut short by a half-closed connection with a 400 invalid_body problem', async () => {
    const head = `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.account.apiKey}\r\n`;
    const res = await rawRequest(
      t.directUrl,
      [`${head}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"to": "+1`],
      { end: true },
    );
    expect({ status: res.status, problem: JSON.parse(res.body) }).toMatchObject({
      status: 400,
      problem: { code: 'invalid_body', detail: 'The request ended before its body was complete.' },
    });
  });

  it('keeps serving the next connection after one it refused', async () => {
    await rawRequest(t.directUrl, ['GET\r\n\r\n']);
    expect((await fetch(`${t.directUrl}/healthz`)).status).toBe(200);
  });
});

describe("the problems for Node's refusals", () => {
  it('match the status Node would have answered, from a catalogued code', () => {
    const problem = (code: string) => {
      const { status, code: answered } = clientErrorProblem(Object.assign(new Error(code), { code }));
      return { status, code: answered, catalogued: CATALOGUE[answered].status };
    };
    expect(problem('HPE_HEADER_OVERFLOW')).toEqual({ status: 431, code: 'headers_too_large', catalogued: 431 });
    expect(problem('ERR_HTTP_REQUEST_TIMEOUT')).toEqual({ status: 408, code: 'request_timeout', catalogued: 408 });
    expect(problem('HPE_CHUNK_EXTENSIONS_OVERFLOW')).toEqual({
      status: 413,
      code: 'payload_too_large',
      catalogued: 413,
    });
    expect(problem('HPE_SOMETHING_NEW')).toEqual({ status: 400, code: 'invalid_request', catalogued: 400 });
  });
});
