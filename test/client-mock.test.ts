// The typed client against `prism mock` of the spec: for every operation, the request the client builds (method, path,
// key, body encoding) and the answer it returns, read off the wire; Prism checks the request against the spec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient, type TelephonyClient } from '../client/index.js';
import { loadSpec } from '../server/http/spec.js';
import { startPrismMock, type Prism } from './support/prism.js';
import { exampleRequest, samplePath } from './support/spec-operations.js';

interface Exchange {
  method: string;
  path: string;
  authorization: string | null;
  contentType: string | null;
  body: string | null;
  status: number;
  answer: string;
}

describe('typed client against prism mock', () => {
  let prism: Prism;
  let client: TelephonyClient;
  let formClient: TelephonyClient;
  let last: Exchange | undefined;
  /** A fetch that records what went over the wire, so the test asserts the client's own work. */
  const recordingFetch = async (input: Request): Promise<Response> => {
    const body = input.body ? await input.clone().text() : null;
    const res = await fetch(input);
    const url = new URL(input.url);
    last = {
      method: input.method,
      path: url.pathname + url.search,
      authorization: input.headers.get('authorization'),
      contentType: input.headers.get('content-type'),
      body,
      status: res.status,
      answer: await res.clone().text(),
    };
    return res;
  };
  beforeAll(async () => {
    prism = await startPrismMock();
    client = createTelephonyClient({ baseUrl: prism.url, apiKey: 'tk_mock', fetch: recordingFetch });
    formClient = createTelephonyClient({
      baseUrl: prism.url,
      apiKey: 'tk_mock',
      encoding: 'form',
      fetch: recordingFetch,
    });
  });
  afterAll(() => prism.stop());

  const doc = loadSpec().document;
  for (const op of loadSpec().operations.filter((o) => o.path.startsWith('/v1/'))) {
    const route = `${op.method.toUpperCase()} ${op.path}`;
    it(`${op.operationId}: sends ${route} with the key, and returns the parsed answer`, async () => {
      const { params, body } = exampleRequest(op);
      const call = (client as any)[op.method.toUpperCase()].bind(client);
      last = undefined;
      const responses = doc.paths[op.path][op.method].responses;
      const success = Object.keys(responses)
        .filter((code) => /^2/.test(code))
        .sort()[0];
      // A binary answer (a recording's audio) is read as bytes; every other answer is JSON.
      const binary = Object.keys(responses[success].content ?? {}).some((type) => !type.includes('json'));
      const parseAs = binary ? 'arrayBuffer' : 'json';
      const { data, error, response } = await call(op.path, { params: { path: params }, body, parseAs });
      expect(error, prism.output().slice(-2000)).toBeUndefined();
      expect(response.status).toBe(Number(success));
      expect(last).toMatchObject({
        method: op.method.toUpperCase(),
        path: samplePath(op, params),
        authorization: 'Bearer tk_mock',
        contentType: body === undefined ? null : 'application/json',
        body: body === undefined ? null : JSON.stringify(body),
        status: Number(success),
      });
      if (last!.answer === '') expect(data).toBeUndefined();
      else if (binary) expect(Buffer.from(data as ArrayBuffer).toString()).toBe(last!.answer);
      else expect(data).toEqual(JSON.parse(last!.answer));
    });
  }

  it('sends form-encoded bodies with repeated keys for arrays, which Prism accepts (201)', async () => {
    const media = ['https://example.com/a.png', 'https://example.com/b.png'];
    const body = { from: '+14155550100', to: '+14155550123', body: 'Hi & bye', media_url: media };
    const { response } = await formClient.POST('/v1/messages', { body });
    expect(response.status).toBe(201);
    expect(last!.contentType).toBe('application/x-www-form-urlencoded');
    expect(last!.body).toBe(
      'from=%2B14155550100&to=%2B14155550123&body=Hi+%26+bye' +
        '&media_url=https%3A%2F%2Fexample.com%2Fa.png&media_url=https%3A%2F%2Fexample.com%2Fb.png',
    );
  });
});
