// express-openapi-validator 5.6 mounts its middlewares as wrappers that wait for the loaded spec (`pContext.then`)
// on every request, long after it has loaded: a promise turn each, four per request, one of them (security) only to
// call `next()` when `validateSecurity` is false. Once a wrapper has built its middleware from the loaded spec, the
// same middleware is called here directly; until then (the first request) the library's wrapper runs. What each one
// checks is the library's own code, unchanged. A wrapper this file does not know is mounted as the library gives it.
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

type Middleware = (req: unknown, res: unknown, next: (err?: unknown) => void) => unknown;
type Options = Parameters<typeof OpenApiValidator.middleware>[0];
/** The validator instance's methods that each wrapper calls once the spec is loaded. */
interface Instance {
  options?: { validateSecurity?: unknown };
  installPathParams?: (...args: unknown[]) => unknown;
  metadataMiddleware?: (...args: unknown[]) => Middleware;
  requestValidationMiddleware?: (...args: unknown[]) => Middleware;
  responseValidationMiddleware?: (...args: unknown[]) => Middleware;
}
type Builder = 'metadataMiddleware' | 'requestValidationMiddleware' | 'responseValidationMiddleware';

/** The wrapper's name (the library names its functions) and the instance's method it builds its middleware with. */
const BUILT_BY: Record<string, Builder> = {
  metadataMiddleware: 'metadataMiddleware',
  requestMiddleware: 'requestValidationMiddleware',
  responseMiddleware: 'responseValidationMiddleware',
};

/** How many of the mounted middlewares skip the library's promise turn once built (checked by a test). */
export let directMiddlewares = 0;

/** The validator's middlewares, as `OpenApiValidator.middleware(options)` gives them but without their wait. */
export function validatorMiddlewares(options: Options): RequestHandler[] {
  const library = OpenApiValidator.middleware(options) as unknown as Middleware[];
  const instance = (OpenApiValidator.middleware as { _oav?: Instance })._oav;
  if (!instance) return library;
  directMiddlewares = 0;
  const mounted: Middleware[] = [];
  for (const wrapper of library) {
    if (wrapper.name === 'securityMiddleware' && instance.options?.validateSecurity === false) continue;
    const direct =
      wrapper.name === 'pathParamsMiddleware'
        ? pathParamsOnce(instance, wrapper)
        : BUILT_BY[wrapper.name]
          ? builtOnce(instance, BUILT_BY[wrapper.name], wrapper)
          : null;
    if (direct) directMiddlewares++;
    mounted.push(direct ?? wrapper);
  }
  return mounted;
}

/** The path params are installed on the app by the first request; after that the library's wrapper only calls next. */
function pathParamsOnce(instance: Instance, wrapper: Middleware): Middleware | null {
  const install = instance.installPathParams;
  if (typeof install !== 'function') return null;
  let installed = false;
  instance.installPathParams = function (this: unknown, ...args: unknown[]) {
    const result = install.apply(this, args);
    installed = true;
    return result;
  };
  return (req, res, next) => (installed ? next() : wrapper(req, res, next));
}

/** Calls the middleware the wrapper built, once it has, as the wrapper does: what it throws or rejects goes to next. */
function builtOnce(instance: Instance, method: Builder, wrapper: Middleware): Middleware | null {
  const build = instance[method];
  if (typeof build !== 'function') return null;
  let built: Middleware | null = null;
  instance[method] = function (this: unknown, ...args: unknown[]) {
    return (built = build.apply(this, args));
  };
  return (req, res, next) => {
    if (!built) return wrapper(req, res, next);
    try {
      const result = built(req, res, next) as PromiseLike<unknown> | undefined;
      if (result && typeof result.then === 'function') result.then(undefined, next);
    } catch (err) {
      next(err);
    }
  };
}
