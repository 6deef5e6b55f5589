import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestServer, type TestServer } from './support/server.js';
import { samplePath, v1Operations } from './support/spec-operations.js';
import { assertKeyedOperationsUnderV1 } from '../server/http/auth.js';
import { loadSpec } from '../server/http/spec.js';

describe('where API keys are checked', () => {
  it('refuses to start with an operation outside /v1 that needs a key, and accepts the spec as it is', () => {
    const [keyed] = loadSpec().operations.filter((op) => !op.public);
    expect(() => assertKeyedOperationsUnderV1([{ ...keyed, operationId: 'listMessages', path: '/messages', expressPath: '/messages' }])).toThrow(
      /operations outside \/v1 need an API key: listMessages/,
    );
    expect(() => assertKeyedOperationsUnderV1([{ ...keyed, public: true, path: '/status', expressPath: '/status' }])).not.toThrow();
    expect(() => assertKeyedOperationsUnderV1(loadSpec().operations)).not.toThrow();
  });
});

describe.each(ENGINES)('API keys on every /v1 operation (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(() => t.stop());

  const ops = v1Operations();

  it('covers every /v1 operation of the spec', () => {
    expect(ops.length).toBeGreaterThanOrEqual(24);
  });

  for (const op of ops) {
    const call = (headers: Record<string, string>) =>
      fetch(t.url + samplePath(op), {
        method: op.method.toUpperCase(),
        headers: { 'content-type': 'application/json', ...headers },
        body: op.method === 'get' || op.method === 'delete' ? undefined : '{}',
      });

    it(`${op.operationId} answers 401 without a key`, async () => {
      const res = await call({});
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await res.json()) as any).toMatchObject({ status: 401, code: 'unauthorized' });
    });

    it(`${op.operationId} answers 401 with a wrong or revoked-looking key`, async () => {
      const res = await call({ authorization: 'Bearer tk_not-a-real-key-0000000000000000000000000' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await res.json()) as any).code).toBe('unauthorized');
    });
  }

  it('accepts a valid key and refuses it once revoked', async () => {
    const account = await t.newAccount();
    const list = () => fetch(`${t.url}/v1/messages`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect((await list()).status).not.toBe(401);
    expect(await t.server.services.accounts.revokeKey(account.apiKey)).toBe(true);
    expect((await list()).status).toBe(401);
  });

  it('refuses other authorization schemes', async () => {
    const account = await t.newAccount();
    const res = await fetch(`${t.url}/v1/messages`, { headers: { authorization: `Basic ${Buffer.from(account.apiKey).toString('base64')}` } });
    expect(res.status).toBe(401);
  });
});
