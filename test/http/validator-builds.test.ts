// The validator's builds hand Ajv the spec's `paths` and `components` out of its walk, keep response validators by
// operation and request validators by operation and media type (server/http/validator-builds.ts). These tests show
// that what it checks is unchanged (a `$ref` into the components still resolves on both sides, a wrong body is still
// caught) and that no Content-Type a caller invents makes it build and keep validators again.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { validatorBuildsTrimmed } from '../../server/http/validator-builds.js';
import { loadSpec } from '../../server/http/spec.js';

const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const { ResponseValidator } = requireFromValidator('./middlewares/openapi.response.validator.js') as {
  ResponseValidator: { prototype: { buildValidators(responses: unknown, key: string): unknown } };
};
const { RequestValidator } = requireFromValidator('./middlewares/openapi.request.validator.js') as {
  RequestValidator: {
    prototype: { buildMiddleware(path: string, schema: unknown, type: unknown, key: string): unknown };
  };
};

const SID = 'SM0123456789abcdef0123456789abcdef';
const PN = 'PN0123456789abcdef0123456789abcdef';
const problem = (status: number) => ({ type: '/problems/not_found', title: 'Not found', status, code: 'not_found' });

describe("the validator's builds", () => {
  let server: Server;
  let base: string;
  /** What the route answers next, after the validator passed the request. */
  let answer: unknown;
  // The builds, as the library is asked for them (the spies call through); their keys name what each is for.
  const responseBuilds = vi.spyOn(ResponseValidator.prototype, 'buildValidators');
  const requestBuilds = vi.spyOn(RequestValidator.prototype, 'buildMiddleware');
  const keysOf = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map((call) => call.at(-1));

  beforeAll(async () => {
    const app = express();
    app.use(express.json({ type: () => true }));
    app.use(
      OpenApiValidator.middleware({
        apiSpec: structuredClone(loadSpec().document) as any,
        validateRequests: { allErrors: true },
        validateResponses: { allErrors: true },
        validateSecurity: false,
        fileUploader: false,
      }),
    );
    app.all('/v1/{*rest}', (_req, res) => {
      res.status(404).type('application/problem+json').json(answer);
    });
    // Four parameters: Express's mark of an error handler.
    app.use(
      (err: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: unknown) => {
        res.status(err.status ?? 500).json({ message: err.message });
      },
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    // The files of one test process share the library's modules (vitest.config.ts).
    responseBuilds.mockRestore();
    requestBuilds.mockRestore();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is changed in its three places', () => {
    expect(validatorBuildsTrimmed()).toBe(true);
  });

  it('passes a response matching its schema through a $ref to the components, fails one that does not', async () => {
    answer = problem(404);
    const good = await fetch(`${base}/v1/messages/${SID}`);
    expect([good.status, await good.json()]).toEqual([404, problem(404)]);

    answer = { ...problem(404), status: 'four hundred and four' };
    const bad = await fetch(`${base}/v1/messages/${SID}`);
    expect(bad.status).toBe(500);
    expect(((await bad.json()) as { message: string }).message).toBe('/response/status must be integer');
  });

  it('refuses a request body by its schema in the components, naming the field', async () => {
    answer = problem(404);
    const refused = await fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 42, from: '+14155550100', body: 'hi' }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toContain('request/body/to must be string');
  });

  it("builds an operation's response validators once, whatever the request's Content-Type", async () => {
    answer = problem(404);
    responseBuilds.mockClear();
    for (const type of ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-foo']) {
      await fetch(`${base}/v1/incoming-phone-numbers/${PN}`, {
        method: 'DELETE',
        headers: { 'content-type': type },
      });
    }
    expect(keysOf(responseBuilds)).toEqual(['DELETE-/v1/incoming-phone-numbers/:sid']);
  });

  it('keeps one request validator for a route without a body, whatever Content-Type its requests carry', async () => {
    answer = problem(404);
    requestBuilds.mockClear();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base}/v1/incoming-phone-numbers/${PN}`, {
        headers: { 'content-type': `application/x-${i}; n=${i}` },
      });
      expect(res.status).toBe(404);
    }
    expect(keysOf(requestBuilds)).toEqual(['GET-/v1/incoming-phone-numbers/:sid-not_provided']);
  });

  it('keeps a request validator per media type a route takes, parameters aside, and none for another', async () => {
    requestBuilds.mockClear();
    const post = (type: string) =>
      fetch(`${base}/v1/verify/send`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: JSON.stringify({ to: 42, channel: 'sms' }),
      });
    for (let i = 0; i < 20; i++) {
      const refused = await post(`application/json; charset=utf-8; n=${i}`);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { message: string }).message).toContain('request/body/to must be string');
    }
    const xml = await post('application/xml; n=1');
    expect(xml.status).toBe(415);
    expect(((await xml.json()) as { message: string }).message).toBe('unsupported media type application/xml');
    expect(keysOf(requestBuilds)).toEqual([
      'POST-/v1/verify/send-application/json',
      'POST-/v1/verify/send-application/xml',
    ]);
  });
});
