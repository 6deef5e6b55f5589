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

/** The validator's context for this spec, as server/app.ts has it built. */
async function context(): Promise<RouteContext> {
  const spec = await new OpenApiSpecLoader({
    apiDoc: structuredClone(loadSpec().document),
    validateApiSpec: false,
    $refParser: BUNDLED_AT_BUILD,
  }).load();
  return new OpenApiContext(spec, /^\/docs\/assets\//) as RouteContext;
}

type Settings = { 'case sensitive routing': boolean; 'strict routing': boolean };

/** What a metadata middleware did with a request: what it set on it and passed on, or what it threw. */
function outcome(
  apply: ApplyMetadata,
  ctx: RouteContext,
  withResponses: boolean,
  method: string,
  url: string,
  settings: Settings,
) {
  const middleware = apply(ctx, withResponses ? ctx.apiDoc : undefined);
  const pathname = url.split('?')[0];
  const req = {
    method,
    url,
    originalUrl: url,
    baseUrl: '',
    path: pathname,
    params: {},
    app: { enabled: (name: keyof Settings) => settings[name] },
  } as unknown as Request & { openapi?: unknown };
  try {
    let passed = false;
    middleware(req, {} as never, () => (passed = true));
    return { passed, openapi: req.openapi, params: req.params };
  } catch (err) {
    const e = err as Error & { status?: number; headers?: unknown };
    return { threw: e.constructor.name, status: e.status, message: e.message, headers: e.headers };
  }
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
    for (const sensitive of [false, true])
      for (const strict of [false, true])
        for (const withResponses of [false, true])
          for (const url of urls)
            for (const method of methods) {
              const settings = { 'case sensitive routing': sensitive, 'strict routing': strict };
              const ours = outcome(routeLookups.tabled, ctx, withResponses, method, url, settings);
              const theirs = outcome(routeLookups.unpatched, ctx, withResponses, method, url, settings);
              expect(ours, `${method} ${url} ${JSON.stringify(settings)}`).toEqual(theirs);
              kinds.add('threw' in theirs ? String(theirs.status) : theirs.openapi ? 'matched' : 'passed');
              compared++;
            }
    // Every kind of outcome was among those compared: a match, a 400 (malformed), a 404, a 405, and a path let through.
    expect([...kinds].sort()).toEqual(['400', '404', '405', 'matched', 'passed']);
    expect(compared).toBeGreaterThan(4000);
  });
});
