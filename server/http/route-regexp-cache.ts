// express-openapi-validator 5.6 compiles the path pattern of every route of the spec on every request
// (`lookupRoute` calls path-to-regexp's `pathToRegexp` in a loop): about a tenth of the server's time on a
// simple POST. The patterns and options never change, so remember each compiled pattern. The validator reads
// `pathToRegexp` from the module's exports at each call, which is where the cache goes in.
// Upstream: cdimascio/express-openapi-validator#1217 caches them in the validator; drop this once it ships.
import { createRequire } from 'node:module';

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const pathToRegexpModule = requireFromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp & { cached?: true } };

const MAX_PATTERNS = 2000;

if (!pathToRegexpModule.pathToRegexp.cached) {
  const compile = pathToRegexpModule.pathToRegexp;
  // By pattern, then by the two options the validator passes (sensitive, strict) as bits: a hit allocates nothing.
  const cache = new Map<string, ReturnType<PathToRegexp>[]>();
  const cached = ((path: unknown, options: Record<string, unknown> = {}) => {
    if (typeof path !== 'string') return compile(path, options);
    let flags = 0;
    for (const name in options) {
      if (name === 'sensitive') flags |= options[name] ? 1 : 0;
      else if (name === 'strict') flags |= options[name] ? 2 : 0;
      else return compile(path, options);
    }
    let entries = cache.get(path);
    if (!entries) {
      if (cache.size >= MAX_PATTERNS) return compile(path, options);
      cache.set(path, (entries = []));
    }
    // The regexps have no global or sticky flag, so sharing one between calls keeps no state between them.
    return (entries[flags] ??= compile(path, options));
  }) as PathToRegexp & { cached?: true };
  cached.cached = true;
  pathToRegexpModule.pathToRegexp = cached;
}

/** True when the validator's route lookup goes through the cache (checked by a test). */
export function routeRegexpCacheInstalled(): boolean {
  return pathToRegexpModule.pathToRegexp.cached === true;
}
