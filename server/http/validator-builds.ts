// express-openapi-validator 5.6 builds a request validator for each operation and request Content-Type, and a
// response validator for each operation, request Content-Type, status and media type, on the first request that
// needs it, each build tens of milliseconds, and keeps them for good. Three changes:
// - Every schema it hands Ajv carries the spec's whole `paths` and `components` (so that `#/components/...` resolves
//   inside it), and Ajv walks the whole of each schema it is given, looking for `$id`s: 160 KB of spec per schema.
//   Here they become non-enumerable before Ajv sees them: the walk skips them, and a `$ref` still reads them by
//   name. The spec has no `$id`, so the walk found nothing in them anyway.
// - Response validators are kept by the *request's* Content-Type too, though they depend on the operation alone, so
//   each new request Content-Type on a route built them all again. Here they are kept by method and route.
// - Request validators are kept by the request's whole Content-Type, parameters included: `application/json; x=1`,
//   `x=2`... each built and kept a new set for good, and a GET's Content-Type (it has no body) counted too. A caller
//   with a key could grow the server's memory by about 70 KB and spend about 15 ms of its CPU with each request (1,000
//   GETs: 72 MB). Here an operation without a body is keyed by its route alone, one with a body by the media type
//   (parameters dropped: the body was parsed before, and the spec's media types have none), and a media type the
//   operation does not take is refused (415) before anything is kept, as the library does.
// In the fuzz suite, whose requests carry dozens of content types, the builds were 37% of the server's CPU; every test
// server paid them for each operation it served. What is checked per request does not change (the contract tests).
// The library does all three in every version up to 5.6; drop a change when it stops needing it.
import utilModule from 'express-openapi-validator/dist/middlewares/util.js';
import responseModule from 'express-openapi-validator/dist/middlewares/openapi.response.validator.js';
import requestModule from 'express-openapi-validator/dist/middlewares/openapi.request.validator.js';

type UseAjvCache = (ajv: unknown, schema: Record<string, unknown>, ajvCacheKey: string) => unknown;

interface ResponseValidator {
  validatorsCache: Record<string, unknown>;
  buildValidators(responses: unknown, ajvCacheKey: string): unknown;
  _getOrBuildValidator(req: { method: string; openapi: { expressRoute: string } }, responses: unknown): unknown;
}

// The validator's modules read `useAjvCache` from this module's exports at each call, which is where the change goes.
const util = utilModule as unknown as { useAjvCache: UseAjvCache & { hidesSpec?: true } };
const { ResponseValidator } = responseModule as unknown as {
  ResponseValidator: { prototype: ResponseValidator & { keyedByOperation?: true } };
};

interface ContentTypeClass {
  from(req: unknown): { mediaType: string | null };
  fromString(type: string | undefined): unknown;
}
type Handler = (req: unknown, res: unknown, next: unknown) => unknown;
interface Openapi {
  expressRoute: string;
  schema: { requestBody?: unknown };
}
interface RequestValidator {
  middlewareCache: Record<string, Handler>;
  buildMiddleware(path: string, reqSchema: unknown, contentType: unknown, ajvCacheKey: string): Handler;
  validate(req: { method: string; openapi?: Openapi }, res: unknown, next: () => unknown): unknown;
}
const { ContentType } = utilModule as unknown as { ContentType: ContentTypeClass };
const { RequestValidator } = requestModule as unknown as {
  RequestValidator: { prototype: RequestValidator & { keyedByMediaType?: true } };
};

const SPEC_PARTS = ['paths', 'components'];

if (!util.useAjvCache.hidesSpec) {
  const useAjvCache = util.useAjvCache;
  const hiding: UseAjvCache & { hidesSpec?: true } = (ajv, schema, ajvCacheKey) => {
    for (const name of SPEC_PARTS) {
      const own = Object.getOwnPropertyDescriptor(schema, name);
      if (own?.enumerable) Object.defineProperty(schema, name, { ...own, enumerable: false });
    }
    return useAjvCache(ajv, schema, ajvCacheKey);
  };
  hiding.hidesSpec = true;
  util.useAjvCache = hiding;
}

const responses = ResponseValidator.prototype;
if (!responses.keyedByOperation) {
  responses._getOrBuildValidator = function (req, operationResponses) {
    const key = `${req.method}-${req.openapi.expressRoute}`;
    return (this.validatorsCache[key] ??= this.buildValidators(operationResponses, key));
  };
  responses.keyedByOperation = true;
}

const requests = RequestValidator.prototype;
if (!requests.keyedByMediaType) {
  // The library's `validate`, but for its key and the Content-Type it builds with.
  requests.validate = function (req, res, next) {
    const openapi = req.openapi;
    if (!openapi) return next();
    const path = openapi.expressRoute;
    const mediaType = openapi.schema.requestBody ? (ContentType.from(req).mediaType ?? undefined) : undefined;
    const key = `${req.method}-${path}-${mediaType ?? 'not_provided'}`;
    const middleware = (this.middlewareCache[key] ??= this.buildMiddleware(
      path,
      openapi.schema,
      ContentType.fromString(mediaType),
      key,
    ));
    return middleware(req, res, next);
  };
  requests.keyedByMediaType = true;
}

/** True when the three changes are in place (checked by a test). */
export function validatorBuildsTrimmed(): boolean {
  return (
    util.useAjvCache.hidesSpec === true && responses.keyedByOperation === true && requests.keyedByMediaType === true
  );
}
