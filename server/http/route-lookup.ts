// express-openapi-validator 5.6 finds each request's operation (the `applyOpenApiMetadata` middleware's `lookupRoute`)
// by walking every route of the spec, and for each one it passes (a POST /v1/messages passes most of them) it lists
// the route map again, builds its pair of paths, reads two of the app's settings and looks up its compiled path
// pattern: 16 µs of a POST /v1/messages' 0.5 ms of main thread on a slow hour (docs/performance.md). Here the walk is
// over a table kept for each pair of those settings: each route's paths, and its pattern and parameter names compiled
// when the walk first reaches it. What it matches, in which order, what it sets on the request and what it throws are
// the library's (test/http/route-lookup.test.ts runs both on every operation of the spec). The validator reads
// `applyOpenApiMetadata` from the module's exports when it installs its middleware, which is where the change goes.
// Upstream: cdimascio/express-openapi-validator#1217 caches the patterns but keeps the rest of the walk; drop this when
// the library's lookup stops doing that work.
import metadataModule from 'express-openapi-validator/dist/middlewares/openapi.metadata.js';
import typesModule from 'express-openapi-validator/dist/framework/types.js';
import preprocessorModule from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { pathToRegexp } from 'path-to-regexp';
import type { NextFunction, Request, Response } from 'express';

type PathItems = Record<string, Record<string, unknown> | undefined>;

/** What the middleware reads of the validator's OpenApiContext. */
export interface RouteContext {
  apiDoc: { paths: PathItems };
  expressRouteMap: Record<string, { basePath: string }>;
  openApiRouteMap: Record<string, Record<string, unknown>>;
  useRequestUrl?: boolean;
  ignoreUndocumented?: boolean;
  serial: number;
  shouldIgnoreRoute(path: string): boolean;
  isManagedRoute(path: string): boolean;
  routePair(route: string): { expressRoute: string; openApiRoute: string } | null;
}
type ResponseDoc = { paths: PathItems } | undefined;
type Middleware = (req: Request, res: Response, next: NextFunction) => void;
export type ApplyMetadata = (context: RouteContext, responseApiDoc?: ResponseDoc) => Middleware;

const metadata = metadataModule as unknown as {
  applyOpenApiMetadata: ApplyMetadata & { tabled?: true; unpatched?: ApplyMetadata };
};
type HttpErrorClass = new (err: Record<string, unknown>) => Error;
const { BadRequest, MethodNotAllowed, NotFound } = typesModule as unknown as Record<
  'BadRequest' | 'MethodNotAllowed' | 'NotFound',
  HttpErrorClass
>;
const { httpMethods } = preprocessorModule as unknown as {
  httpMethods: Set<string>;
};

interface Route {
  expressRoute: string;
  openApiRoute: string;
  /** The route's key in the spec's `paths` (its OpenAPI path without the base path). */
  pathKey: string;
  /** Its compiled pattern and parameter names, or what compiling it threw, made when the walk first reaches it. */
  compiled?: { regexp: RegExp; paramKeys: string[] } | { error: unknown };
}

interface Matched {
  schema: unknown;
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  serial: number;
  _responseSchema: unknown;
}

/** The library's middleware (openapi.metadata.js), its route lookup walking the table instead. */
const tabled: ApplyMetadata = (context, responseApiDoc) => {
  // By the app's two routing settings as bits (case sensitive 1, strict 2), each made on the first request with them.
  const tables: Route[][] = [];
  const tableFor = (): Route[] =>
    Object.entries(context.expressRouteMap).map(([expressRoute, methods]) => {
      const { openApiRoute } = context.routePair(expressRoute)!;
      return { expressRoute, openApiRoute, pathKey: openApiRoute.substring(methods.basePath.length) };
    });
  // As the library: a pattern is compiled when the walk reaches it, so a pattern that does not compile fails the
  // requests that reach it (its error again each time), not every request.
  const compile = (route: Route, flags: number) => {
    if (!route.compiled) {
      try {
        // The library's options, `strict` too, which path-to-regexp 8 no longer reads.
        const options = { sensitive: (flags & 1) !== 0, strict: (flags & 2) !== 0 };
        const { regexp, keys } = pathToRegexp(route.expressRoute, options);
        route.compiled = { regexp, paramKeys: keys.map((k) => k.name) };
      } catch (error) {
        route.compiled = { error };
      }
    }
    if ('error' in route.compiled) throw route.compiled.error;
    return route.compiled;
  };

  const lookupRoute = (req: Request): Matched | null => {
    const path = context.useRequestUrl ? req.url.split('?')[0] : req.originalUrl.split('?')[0];
    // Made before the app's settings are read: a spec without routes never reads them, as the library's walk.
    const first = (tables[0] ??= tableFor());
    if (!first.length) return null;
    const flags = (req.app.enabled('case sensitive routing') ? 1 : 0) | (req.app.enabled('strict routing') ? 2 : 0);
    for (const route of (tables[flags] ??= tableFor())) {
      const { regexp, paramKeys } = compile(route, flags);
      const matchedRoute = regexp.exec(path);
      if (!matchedRoute) continue;
      const method = req.method.toLowerCase();
      // As the library's zipObject: assigned one by one (a parameter named `__proto__` sets no own property).
      const pathParams: Record<string, string> = {};
      try {
        for (let i = 0; i < paramKeys.length; i++) pathParams[paramKeys[i]] = decodeURIComponent(matchedRoute[i + 1]);
      } catch {
        throw new BadRequest({ path: req.path, message: `malformed uri'` });
      }
      return {
        schema: context.apiDoc.paths[route.pathKey]![method],
        expressRoute: route.expressRoute,
        openApiRoute: route.openApiRoute,
        pathParams,
        serial: -1,
        _responseSchema: responseApiDoc?.paths[route.pathKey]![method],
      };
    }
    return null;
  };

  return (req, _res, next) => {
    // As the library's: the base path is empty when the path is fully qualified.
    const path = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
    if (context.shouldIgnoreRoute(path)) return next();
    const matched = lookupRoute(req);
    if (matched) {
      const { expressRoute, openApiRoute, pathParams, schema } = matched;
      if (!schema) {
        // The path matches, the method does not.
        if (context.ignoreUndocumented) return next();
        throw new MethodNotAllowed({
          path: req.path,
          message: `${req.method} method not allowed`,
          headers: {
            Allow: Object.keys(context.openApiRouteMap[openApiRoute])
              .filter((key) => httpMethods.has(key.toLowerCase()))
              .join(', '),
          },
        });
      }
      const openapi: Record<string, unknown> = {
        expressRoute,
        openApiRoute,
        pathParams,
        schema,
        serial: context.serial,
      };
      if (responseApiDoc) openapi._responseSchema = matched._responseSchema;
      (req as Request & { openapi?: unknown }).openapi = openapi;
      req.params = pathParams;
    } else if (context.isManagedRoute(path) && !context.ignoreUndocumented) {
      throw new NotFound({ path: req.path, message: 'not found' });
    }
    next();
  };
};

if (!metadata.applyOpenApiMetadata.tabled) {
  const unpatched = metadata.applyOpenApiMetadata;
  metadata.applyOpenApiMetadata = Object.assign(tabled, { tabled: true as const, unpatched });
}

/** The middleware factory the validator calls now, and the library's own (for the test comparing both). */
export const routeLookups = { tabled, unpatched: metadata.applyOpenApiMetadata.unpatched! };
