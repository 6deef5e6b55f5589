// express-openapi-validator matches each request by compiling a path-to-regexp pattern for every spec route
// it tries, on every request (about 4% of the server's CPU under POST load). The patterns are a fixed set,
// so the compiled result is memoized here. The matcher only calls regexp.exec (no g/y flag, so no lastIndex
// state) and reads the keys, so sharing one compiled pattern between requests is safe.
import { createRequire } from 'node:module';

type Compile = (path: string, options?: { sensitive?: boolean; strict?: boolean; end?: boolean; delimiter?: string; trailing?: boolean }) => unknown;

let installed = false;

export function memoizeValidatorRouteMatching(): void {
  if (installed) return;
  installed = true;
  // The very module instance the validator requires.
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const pathToRegexp = fromValidator('path-to-regexp') as { pathToRegexp: Compile };
  const compile = pathToRegexp.pathToRegexp;
  const cache = new Map<string, unknown>();
  pathToRegexp.pathToRegexp = (path, options = {}) => {
    if (typeof path !== 'string') return compile(path, options);
    const key = `${options.sensitive ? 1 : 0}${options.strict ? 1 : 0}${options.end === false ? 0 : 1}${options.trailing === false ? 0 : 1}${options.delimiter ?? ''}\u0000${path}`;
    let compiled = cache.get(key);
    if (!compiled) {
      compiled = compile(path, options);
      if (cache.size < 5000) cache.set(key, compiled);
    }
    return compiled;
  };
}
