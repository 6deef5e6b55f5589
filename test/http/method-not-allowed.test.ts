// 405 as the spec declares it and the server answers it: every operation lists the shared MethodNotAllowed
// response (so generators see it), and every path answers each method it does not take with it.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../server/http/spec.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { samplePath } from '../support/spec-operations.js';
import { expectProblem, rawRequest } from '../support/raw-http.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const spec = loadSpec();
const paths = [...new Set(spec.operations.map((op) => op.path))].map((path) => ({
  path,
  ops: spec.operations.filter((op) => op.path === path),
}));

describe('405 in the spec', () => {
  it('is declared on every operation with the shared MethodNotAllowed response', () => {
    const missing = spec.operations
      .filter(
        (op) =>
          spec.document.paths[op.path][op.method].responses['405']?.$ref !== '#/components/responses/MethodNotAllowed',
      )
      .map((op) => op.operationId);
    expect(missing).toEqual([]);
  });

  it('declares the Allow header on MethodNotAllowed, required', () => {
    const response = spec.document.components.responses.MethodNotAllowed;
    expect(response.headers.Allow).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(Object.keys(response.content)).toEqual(['application/problem+json']);
  });
});

describe.each(ENGINES)('405 from the server (%s)', (engine) => {
  const t = useTestServer({ engine });

  it.each(paths.map(({ path, ops }) => [path, ops] as const))(
    '%s answers every method it does not take with 405 and an Allow header listing the methods of the spec',
    async (_path, ops) => {
      const declared = ops.map((op) => op.method);
      for (const method of METHODS.filter((m) => !declared.includes(m))) {
        const res = await fetch(t.directUrl + samplePath(ops[0]), {
          method: method.toUpperCase(),
          headers: { authorization: `Bearer ${t.account.apiKey}`, 'content-type': 'application/json' },
          body: method === 'get' ? undefined : '{}',
        });
        await expectProblem(res, 405, 'method_not_allowed');
        const allow = (res.headers.get('allow') ?? '').split(/,\s*/).map((m) => m.toLowerCase());
        expect({ method, allow: allow.sort() }).toEqual({ method, allow: [...declared].sort() });
      }
    },
  );
});

describe.each(ENGINES)('HEAD (%s)', (engine) => {
  const t = useTestServer({ engine });
  /** A HEAD as bytes on the wire (fetch never shows a HEAD's body, so it could not tell one was sent). */
  const head = (path: string, key = true) =>
    rawRequest(t.directUrl, [
      `HEAD ${path} HTTP/1.1\r\nHost: ${new URL(t.directUrl).host}\r\nConnection: close\r\n` +
        (key ? `Authorization: Bearer ${t.account.apiKey}\r\n` : '') +
        '\r\n',
    ]);

  // Every path of the spec: one that takes no GET answers 405 alike, with the same Allow.
  it.each(['/healthz', '/readyz', '/openapi.json', '/problems', ...paths.map(({ ops }) => samplePath(ops[0]))])(
    'answers HEAD %s as its GET (status, type, length, Allow), with no body',
    async (path) => {
      const get = await fetch(t.directUrl + path, {
        headers: { authorization: `Bearer ${t.account.apiKey}` },
        redirect: 'manual',
      });
      const length = Buffer.byteLength(await get.text());
      const answer = await head(path);
      expect({
        status: answer.status,
        type: answer.headers['content-type'] ?? null,
        // /metrics counts the requests themselves: its length moves between two reads.
        length: path === '/metrics' ? String(length) : answer.headers['content-length'],
        allow: answer.headers.allow ?? null,
        body: answer.body,
      }).toEqual({
        status: get.status,
        type: get.headers.get('content-type'),
        length: String(length),
        allow: get.headers.get('allow'),
        body: '',
      });
    },
  );

  it('answers HEAD without an API key on /v1 with 401 and no body, counted under its GET operation', async () => {
    const counted = async () =>
      Number(
        /^http_requests_total\{operation="getAccount",status="401"\} (\d+)$/m.exec(
          await (await fetch(`${t.directUrl}/metrics`)).text(),
        )?.[1] ?? 0,
      );
    const before = await counted();
    const answer = await head('/v1/account', false);
    expect([answer.status, answer.headers['content-type'], answer.body]).toEqual([
      401,
      'application/problem+json; charset=utf-8',
      '',
    ]);
    expect(await counted()).toBe(before + 1);
  });
});
