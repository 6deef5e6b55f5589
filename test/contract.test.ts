// The server's real answers checked by `prism proxy --errors` against the spec: zero violations.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from './support/server.js';
import { callWithExample, v1Operations } from './support/spec-operations.js';

describe.each(ENGINES)('contract of the real server under prism proxy (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true });

  async function expectNoViolation(res: Response) {
    const text = await res.text();
    expect(text, `prism flagged ${res.url}`).not.toContain('stoplight.io/prism/errors');
    expect(t.violations()).toEqual([]);
  }

  it('answers the public routes as the spec says', async () => {
    for (const path of ['/openapi.json', '/healthz', '/readyz']) {
      const res = await fetch(t.url + path);
      expect(res.status).toBe(200);
      await expectNoViolation(res);
    }
  });

  it('answers every /v1 operation called with its spec example as the spec says', async () => {
    for (const op of v1Operations()) {
      const res = await callWithExample(t.url, op, { authorization: `Bearer ${t.account.apiKey}` });
      expect(res.status, op.operationId).not.toBe(500);
      await expectNoViolation(res);
    }
  });

  // Prism answers a request without a key itself, without forwarding it; 401s are checked directly in auth.test.ts.
  it('answers problems as the spec says', async () => {
    const op = v1Operations().find((o) => o.operationId === 'getMessage')!;
    const res = await callWithExample(t.url, op, { authorization: `Bearer ${t.account.apiKey}` });
    await expectNoViolation(res);
  });
});
