// express-openapi-validator 5.6 compiles the path pattern of every route of the spec on every request
// (`lookupRoute` calls path-to-regexp's `pathToRegexp` in a loop): about a tenth of the server's time on a
// simple POST. The patterns and options never change, so remember each compiled pattern. The validator reads
// `pathToRegexp` from the module's exports at each call, which is where the cache goes in.
// Upstream: cdimascio/express-openapi-validator#1217 caches them in the validator; drop this once it ships.
import { createRequire } from 'node:module';

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const pathToRegexpModule = requireFromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp & { cached?: true } };

const MAX_ENTRIES = 2000;

if (!pathToRegexpModule.pathToRegexp.cached) {
  const compile = pathToRegexpModule.pathToRegexp;
  const cache = new Map<string, ReturnType<PathToRegexp>>();
  const cached = ((path: unknown, options: Record<string, unknown> = {}) => {
    // Only string patterns with plain options are cached: that is every call the validator makes.
    if (typeof path !== 'string') return compile(path, options);
    let key = path;
    for (const name in options) key += `\u0000${name}=${String(options[name])}`;
    let entry = cache.get(key);
    if (!entry) {
      entry = compile(path, options);
      // The regexps have no global or sticky flag, so sharing one between calls keeps no state between them.
      if (cache.size < MAX_ENTRIES) cache.set(key, entry);
    }
    return entry;
  }) as PathToRegexp & { cached?: true };
  cached.cached = true;
  pathToRegexpModule.pathToRegexp = cached;
}

/** True when the validator's route lookup goes through the cache (checked by a test). */
export function routeRegexpCacheInstalled(): boolean {
  return pathToRegexpModule.pathToRegexp.cached === true;
}
