// The typed client against `prism mock` of the spec: every operation called once, each answer matching the spec's example.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient, type TelephonyClient } from '../client/index.js';
import { loadSpec } from '../server/http/spec.js';
import { startPrismMock, type Prism } from './support/prism.js';
import { exampleRequest } from './support/spec-operations.js';

describe('typed client against prism mock', () => {
  let prism: Prism;
  let client: TelephonyClient;
  let formClient: TelephonyClient;
  beforeAll(async () => {
    prism = await startPrismMock();
    client = createTelephonyClient({ baseUrl: prism.url, apiKey: 'tk_mock' });
    formClient = createTelephonyClient({ baseUrl: prism.url, apiKey: 'tk_mock', encoding: 'form' });
  });
  afterAll(() => prism.stop());

  const doc = loadSpec().document;
  for (const op of loadSpec().operations.filter((o) => o.path.startsWith('/v1/'))) {
    it(`${op.operationId}: ${op.method.toUpperCase()} ${op.path}`, async () => {
      const { params, body } = exampleRequest(op);
      const call = (client as any)[op.method.toUpperCase()].bind(client);
      const { data, error, response } = await call(op.path, { params: { path: params }, body });
      const responses = doc.paths[op.path][op.method].responses;
      const success = Object.keys(responses).filter((code) => /^2/.test(code)).sort()[0];
      expect(error, prism.output().slice(-2000)).toBeUndefined();
      expect(response.status).toBe(Number(success));
      const example = responses[success].content?.['application/json']?.example;
      if (example === undefined) expect(data).toBeUndefined();
      else expect(data).toEqual(example);
    });
  }

  it('sends form-encoded bodies with repeated keys for arrays', async () => {
    const op = loadSpec().operations.find((o) => o.operationId === 'sendMessage')!;
    const { body } = exampleRequest(op);
    const { response } = await formClient.POST('/v1/messages', { body: { ...body, media_url: ['https://example.com/a.png', 'https://example.com/b.png'] } });
    expect(response.status).toBe(201);
  });
});
