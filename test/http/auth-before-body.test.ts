// On /v1 the API key is checked before a byte of the body is read: a caller without a key gets its 401 whatever
// the body is, even one that never ends; the public routes read no body at all.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { expectProblem, rawRequest } from '../support/raw-http.js';

describe.each(ENGINES)('the API key comes before the body (%s)', (engine) => {
  const t = useTestServer({ engine });
  const auth = () => ({ authorization: `Bearer ${t.account.apiKey}` });
  const post = (path: string, headers: Record<string, string>, body: string | Buffer) =>
    fetch(t.directUrl + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('answers 401 unauthorized to a 5 MB body that is not the gzip it claims, sent without a key', async () => {
    const res = await post('/v1/messages', { 'content-encoding': 'gzip' }, randomBytes(5_000_000));
    const problem = await expectProblem(res, 401, 'unauthorized');
    expect(problem.detail).toBe('A valid API key is required: send "Authorization: Bearer <API_KEY>".');
  });

  it('answers 401 unauthorized to a bad body sent with a wrong key', async () => {
    const res = await post('/v1/messages', { authorization: 'Bearer tk_wrong', 'content-encoding': 'gzip' }, 'nope');
    await expectProblem(res, 401, 'unauthorized');
  });

  it('answers 401 unauthorized to a body that never finishes, without waiting for it', async () => {
    const head = 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
    // 10 bytes of the 1,000,000 announced, and the connection left open: only an answer that reads none comes.
    const res = await rawRequest(t.directUrl, [`${head}Content-Length: 1000000\r\n\r\n`, '{"to": "+1']);
    expect({ status: res.status, code: JSON.parse(res.body).code, closed: res.closed }).toEqual({
      status: 401,
      code: 'unauthorized',
      closed: false,
    });
  });

  it('answers 401 unauthorized to a chunked body whose framing is broken, sent without a key', async () => {
    const head = 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
    const res = await rawRequest(t.directUrl, [`${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n`]);
    expect({ status: res.status, code: JSON.parse(res.body).code }).toEqual({ status: 401, code: 'unauthorized' });
  });

  it('reads the body of a request with a key: the same bad gzip answers 400 invalid_body', async () => {
    const res = await post('/v1/messages', { ...auth(), 'content-encoding': 'gzip' }, randomBytes(1000));
    await expectProblem(res, 400, 'invalid_body');
  });

  it('answers an unknown /v1 route 401 without a key and 404 with one', async () => {
    await expectProblem(await post('/v1/nothing-here', {}, '{'), 401, 'unauthorized');
    await expectProblem(await post('/v1/nothing-here', auth(), '{}'), 404, 'not_found');
  });

  it('answers a /v1 method the path does not take 401 without a key and 405 with one', async () => {
    const put = (headers: Record<string, string>) =>
      fetch(`${t.directUrl}/v1/messages`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{',
      });
    await expectProblem(await put({}), 401, 'unauthorized');
    const res = await put(auth());
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, POST');
  });

  it('serves the public routes whatever body comes with them, without reading it', async () => {
    for (const path of ['/healthz', '/problems', '/openapi.json']) {
      const head = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n`;
      const res = await rawRequest(t.directUrl, [`${head}Content-Encoding: gzip\r\nContent-Length: 8\r\n\r\nnot gzip`]);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
  });

  it('leaves the body of a GET on /v1 unread', async () => {
    const head = `GET /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.account.apiKey}\r\n`;
    const res = await rawRequest(t.directUrl, [`${head}Content-Encoding: gzip\r\nContent-Length: 8\r\n\r\nnot gzip`]);
    expect(res.status).toBe(200);
  });

  it('answers a method a public route does not take with 405 and its Allow header', async () => {
    const res = await post('/healthz', { 'content-encoding': 'gzip' }, 'not gzip');
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET');
  });
});
