// express-openapi-validator 5.6 finds a request's route by walking the spec's routes (`lookupRoute`), allocating at
// every step (an entry of the route table, a route pair, an options object; two reads of the app's settings): about
// a twentieth of a single lookup's main thread, and garbage. Here the routes' patterns are tried in the validator's
// order without allocating, and the validator's own middleware then runs on a view of its context that holds the
// one route found, so that what follows a match (parameters, 405, metadata) stays the validator's. A path no route
// matches goes to its middleware over the whole table, as before (404 and the rest).
import { createRequire } from 'node:module';
import type { NextFunction, Request, Response } from 'express';
import './route-regexp-cache.js';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;
interface Context {
  expressRouteMap: Record<string, unknown>;
  useRequestUrl?: boolean;
}
type ApplyMetadata = ((context: Context, responseApiDoc: unknown) => Middleware) & { narrowed?: true };
type PathToRegexp = (path: string, options: { sensitive: boolean; strict: boolean }) => { regexp: RegExp };

const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
// The validator calls applyOpenApiMetadata through this module's exports (middlewares/index.js reads it at each use).
const metadataModule = requireFromValidator('./middlewares/openapi.metadata.js') as {
  applyOpenApiMetadata: ApplyMetadata;
};
const pathToRegexpModule = requireFromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp };

if (!metadataModule.applyOpenApiMetadata.narrowed) {
  const apply = metadataModule.applyOpenApiMetadata;
  const narrowed: ApplyMetadata = (context, responseApiDoc) => {
    const whole = apply(context, responseApiDoc);
    const routes = Object.keys(context.expressRouteMap).map((route) => ({
      route,
      // By the app's two routing settings as bits (case sensitive 1, strict 2), as the validator compiles them.
      patterns: [] as RegExp[],
      middleware: apply(
        Object.create(context, { expressRouteMap: { value: { [route]: context.expressRouteMap[route] } } }) as Context,
        responseApiDoc,
      ),
    }));
    return (req, res, next) => {
      const url = context.useRequestUrl ? req.url : req.originalUrl;
      const query = url.indexOf('?');
      const path = query === -1 ? url : url.slice(0, query);
      const sensitive = req.app.enabled('case sensitive routing');
      const strict = req.app.enabled('strict routing');
      const flags = (sensitive ? 1 : 0) | (strict ? 2 : 0);
      for (const r of routes) {
        const pattern = (r.patterns[flags] ??= pathToRegexpModule.pathToRegexp(r.route, { sensitive, strict }).regexp);
        if (pattern.test(path)) return r.middleware(req, res, next);
      }
      return whole(req, res, next);
    };
  };
  narrowed.narrowed = true;
  metadataModule.applyOpenApiMetadata = narrowed;
}

/** True when the validator's route lookup goes through this module (checked by a test). */
export function routeLookupInstalled(): boolean {
  return metadataModule.applyOpenApiMetadata.narrowed === true;
}
