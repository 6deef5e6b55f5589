import { describe, expect, it } from 'vitest';
import { ENGINES, type TestServer, useTestServer } from './support/server.js';
import { samplePath, v1Operations } from './support/spec-operations.js';
import { assertKeyedOperationsUnderV1 } from '../server/http/auth.js';
import { loadSpec } from '../server/http/spec.js';
import { AccountService } from '../server/accounts/service.js';

describe('where API keys are checked', () => {
  it('refuses to start with an operation outside /v1 that needs a key, and accepts the spec as it is', () => {
    const [keyed] = loadSpec().operations.filter((op) => !op.public);
    expect(() =>
      assertKeyedOperationsUnderV1([
        { ...keyed, operationId: 'listMessages', path: '/messages', expressPath: '/messages' },
      ]),
    ).toThrow(/operations outside \/v1 need an API key: listMessages/);
    expect(() =>
      assertKeyedOperationsUnderV1([{ ...keyed, public: true, path: '/status', expressPath: '/status' }]),
    ).not.toThrow();
    expect(() => assertKeyedOperationsUnderV1(loadSpec().operations)).not.toThrow();
  });
});

describe.each(ENGINES)('API keys on every /v1 operation (%s)', (engine) => {
  const t = useTestServer({ engine });

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
    expect((await list()).status).toBe(200);
    expect(await t.server.services.accounts.revokeKey(account.apiKey)).toBe(true);
    expect((await list()).status).toBe(401);
  });

  it('refuses other authorization schemes', async () => {
    const account = await t.newAccount();
    const res = await fetch(`${t.url}/v1/messages`, {
      headers: { authorization: `Basic ${Buffer.from(account.apiKey).toString('base64')}` },
    });
    expect(res.status).toBe(401);
  });
});

describe.each(ENGINES)('API keys remembered for API_KEY_CACHE_MS (%s)', (engine) => {
  const CACHE_MS = 1500;
  const t = useTestServer({ engine, env: { API_KEY_CACHE_MS: String(CACHE_MS) } });
  const noCache = useTestServer({ engine, env: { API_KEY_CACHE_MS: '0' } });

  const listStatus = (server: TestServer, apiKey: string) =>
    fetch(`${server.url}/v1/messages`, { headers: { authorization: `Bearer ${apiKey}` } }).then((r) => r.status);
  // Another process on the same database (the CLI, a second instance): its own service, so none of the server's memory.
  const elsewhere = (server: TestServer) =>
    new AccountService(server.server.services.store, server.server.services.webhookSecrets);

  it('a key revoked elsewhere works until its remembered account expires, then never again', async () => {
    const account = await t.newAccount();
    const checked = performance.now();
    expect(await listStatus(t, account.apiKey)).toBe(200);
    expect(await elsewhere(t).revokeKey(account.apiKey)).toBe(true);
    expect(await listStatus(t, account.apiKey)).toBe(200);
    await expect.poll(() => listStatus(t, account.apiKey), { timeout: CACHE_MS + 2000, interval: 50 }).toBe(401);
    expect(performance.now() - checked).toBeGreaterThanOrEqual(CACHE_MS - 50);
  });

  it('a key revoked by the server itself stops working at once', async () => {
    const account = await t.newAccount();
    expect(await listStatus(t, account.apiKey)).toBe(200);
    expect(await t.server.services.accounts.revokeKey(account.apiKey)).toBe(true);
    expect(await listStatus(t, account.apiKey)).toBe(401);
  });

  it('an unknown key is not remembered: created elsewhere a moment later, it works at once', async () => {
    const apiKey = `tk_created-after-a-refusal-${Date.now()}`;
    expect(await listStatus(t, apiKey)).toBe(401);
    await elsewhere(t).createAccount('late', apiKey);
    expect(await listStatus(t, apiKey)).toBe(200);
  });

  it('with API_KEY_CACHE_MS=0 every request reads the key: a revocation elsewhere counts at once', async () => {
    const account = await noCache.newAccount();
    expect(await listStatus(noCache, account.apiKey)).toBe(200);
    expect(await elsewhere(noCache).revokeKey(account.apiKey)).toBe(true);
    expect(await listStatus(noCache, account.apiKey)).toBe(401);
  });
});
