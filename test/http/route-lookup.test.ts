// The validator finds each request's operation through a table made once (server/http/route-lookup.ts) instead of its
// own walk: these tests run both on the spec's routes, every method, and the paths that end in an error, under each
// of the app's routing settings, and ask for the same outcome; and they fail when the validator stops installing its
// middleware from the export the change replaces.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Request } from 'express';
import { routeLookups, type ApplyMetadata, type RouteContext } from '../../server/http/route-lookup.js';
import { BUNDLED_AT_BUILD } from '../../server/http/validator-start.js';
import { loadSpec } from '../../server/http/spec.js';

const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const { OpenApiSpecLoader } = requireFromValidator('./framework/openapi.spec.loader.js');
const { OpenApiContext } = requireFromValidator('./framework/openapi.context.js');

/** The validator's context for `apiDoc` (this spec by default), as server/app.ts has it built. */
async function context(
  apiDoc: object = loadSpec().document,
  options: { ignoreUndocumented?: boolean; useRequestUrl?: boolean } = {},
): Promise<RouteContext> {
  const spec = await new OpenApiSpecLoader({
    apiDoc: structuredClone(apiDoc),
    validateApiSpec: false,
    $refParser: BUNDLED_AT_BUILD,
  }).load();
  return new OpenApiContext(
    spec,
    /^\/docs\/assets\//,
    options.ignoreUndocumented,
    options.useRequestUrl,
  ) as RouteContext;
}

type Settings = { 'case sensitive routing': boolean; 'strict routing': boolean };
type Middleware = ReturnType<ApplyMetadata>;
interface Asked {
  method: string;
  url: string;
  /** As Express has it when the app is mounted under a prefix: a `useRequestUrl` context reads `url` instead. */
  originalUrl?: string;
  settings?: Settings;
  /** No `req.app` (a caller outside Express). */
  noApp?: boolean;
}

/** What a metadata middleware did with a request: what it set on it and passed on, or what it threw. */
function outcome(middleware: Middleware, asked: Asked) {
  const pathname = asked.url.split('?')[0];
  const settings = asked.settings ?? { 'case sensitive routing': false, 'strict routing': false };
  const req = {
    method: asked.method,
    url: asked.url,
    originalUrl: asked.originalUrl ?? asked.url,
    baseUrl: '',
    path: pathname,
    params: {},
    ...(asked.noApp ? {} : { app: { enabled: (name: keyof Settings) => settings[name] } }),
  } as unknown as Request & { openapi?: { pathParams?: object } };
  try {
    let passed = false;
    middleware(req, {} as never, () => (passed = true));
    const own = req.openapi?.pathParams && Object.getOwnPropertyNames(req.openapi.pathParams);
    return { passed, openapi: req.openapi, params: req.params, own };
  } catch (err) {
    const e = err as Error & { status?: number; headers?: unknown };
    return { threw: e.constructor.name, status: e.status, message: e.message, headers: e.headers };
  }
}

/** Both middlewares made once for `ctx` (a response document of its own, as the validator's preprocessor makes). */
function both(ctx: RouteContext, withResponses: boolean) {
  const responses = withResponses ? structuredClone(ctx.apiDoc) : undefined;
  return { ours: routeLookups.tabled(ctx, responses), theirs: routeLookups.unpatched(ctx, responses) };
}

describe("the validator's route lookup", () => {
  it('is the table: the validator installs its metadata middleware from the export replaced', () => {
    const metadata = requireFromValidator('./middlewares/openapi.metadata.js');
    const middlewares = requireFromValidator('./middlewares/index.js');
    expect(metadata.applyOpenApiMetadata).toBe(routeLookups.tabled);
    expect(middlewares.applyOpenApiMetadata).toBe(routeLookups.tabled);
    expect(routeLookups.unpatched).not.toBe(routeLookups.tabled);
  });

  it("finds what the library's own walk finds, for every operation, method and routing setting", async () => {
    const ctx = await context();
    const urls = loadSpec().operations.flatMap((op) => {
      const filled = op.path.replace(/\{[^}]+\}/g, 'AB12%20x');
      return [filled, `${filled}?page_size=2`, `${filled}/`, filled.toUpperCase()];
    });
    urls.push(
      '/v1/no-such-thing',
      '/v1/messages/%E0%A4%A',
      '/v1',
      '/docs/assets/app.js',
      '/healthz',
      '/elsewhere',
      '/v1/messages//x',
      '/v1/messages/a:b',
    );
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];
    let compared = 0;
    const kinds = new Set<string>();
    for (const withResponses of [false, true]) {
      // Each middleware serves every request below, its tables made on the first of each setting.
      const { ours, theirs } = both(ctx, withResponses);
      for (const sensitive of [false, true])
        for (const strict of [false, true])
          for (const url of urls)
            for (const method of methods) {
              const asked = {
                method,
                url,
                settings: { 'case sensitive routing': sensitive, 'strict routing': strict },
              };
              const expected = outcome(theirs, asked);
              expect(outcome(ours, asked), `${method} ${url} ${JSON.stringify(asked.settings)}`).toStrictEqual(
                expected,
              );
              kinds.add('threw' in expected ? String(expected.status) : expected.openapi ? 'matched' : 'passed');
              compared++;
            }
    }
    // Every kind of outcome was among those compared: a match, a 400 (malformed), a 404, a 405, and a path let through.
    expect([...kinds].sort()).toEqual(['400', '404', '405', 'matched', 'passed']);
    expect(compared).toBeGreaterThan(4000);
  });

  it('agrees where this spec shows nothing: the request URL, undocumented methods, odd paths, no paths', async () => {
    const op = { get: { responses: { 200: { description: 'ok' } } } };
    const spec = (paths: object) => ({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths });
    const cases: { ctx: RouteContext; asked: Asked[] }[] = [
      {
        // The URL the app was given (`useRequestUrl`) rather than the original one, and a method not documented
        // passed on rather than refused (`ignoreUndocumented`).
        ctx: await context(spec({ '/a': op }), { ignoreUndocumented: true, useRequestUrl: true }),
        asked: [
          { method: 'GET', url: '/a', originalUrl: '/mounted/a' },
          { method: 'POST', url: '/a', originalUrl: '/mounted/a' },
          { method: 'GET', url: '/zz', originalUrl: '/a' },
        ],
      },
      {
        // A path whose pattern does not compile fails only the requests that reach it.
        ctx: await context(spec({ '/a': op, '/z/a(b)': op })),
        asked: [
          { method: 'GET', url: '/a' },
          { method: 'GET', url: '/nope' },
          { method: 'GET', url: '/nope' },
        ],
      },
      {
        // A parameter named `__proto__` is assigned, not defined: no own property.
        ctx: await context(
          spec({
            '/u/{__proto__}': {
              get: {
                parameters: [{ name: '__proto__', in: 'path', required: true, schema: { type: 'string' } }],
                responses: { 200: { description: 'ok' } },
              },
            },
          }),
        ),
        asked: [{ method: 'GET', url: '/u/zz' }],
      },
      // No paths: nothing is read of the app.
      { ctx: await context(spec({})), asked: [{ method: 'GET', url: '/a', noApp: true }] },
    ];
    for (const { ctx, asked } of cases) {
      const { ours, theirs } = both(ctx, true);
      for (const request of asked)
        expect(outcome(ours, request), JSON.stringify(request)).toStrictEqual(outcome(theirs, request));
    }
  });
});
