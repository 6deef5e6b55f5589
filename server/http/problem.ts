// The one error middleware: our own errors, then the validator's and body parser's, then anything unknown.
import type { NextFunction, Request, Response } from 'express';
import { ApiError, errors, problemTypeUri, type FieldError } from '../errors.js';
import { emptyTrailingParameter } from './spec.js';
import { MAX_BODY_DEPTH, MAX_FORM_FIELDS } from './body.js';

interface ValidatorError {
  status: number;
  message: string;
  errors?: { path: string; message: string }[];
  headers?: Record<string, string>;
}

function isValidatorError(err: unknown): err is ValidatorError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as any).status === 'number' &&
    Array.isArray((err as any).errors)
  );
}

/** `/body/participants/0/identifier` -> `participants[0].identifier`; `/query/page_size` -> `page_size`. */
function fieldName(path: string): string {
  const parts = path
    .replace(/^\.?\/?(body|query|params|path|headers)[/.]?/, '')
    .split(/[/.]/)
    .filter(Boolean);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || 'body';
}

/**
 * The most field errors one problem lists: a 1 MB JSON body of unknown keys has some 40,000, which would make
 * a 4 MB answer to a 0.6 MB request.
 */
export const MAX_FIELD_ERRORS = 50;

function fromValidator(err: ValidatorError, req: Request): ApiError {
  switch (err.status) {
    case 400: {
      const all = err.errors ?? [];
      const fieldErrors: FieldError[] = all.slice(0, MAX_FIELD_ERRORS).map((e) => ({
        field: fieldName(e.path),
        message: e.message,
      }));
      const more = all.length > MAX_FIELD_ERRORS ? `; and ${all.length - MAX_FIELD_ERRORS} more` : '';
      const detail = fieldErrors.length
        ? fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; ') + more
        : err.message;
      return errors.invalidRequest(detail, fieldErrors.length ? fieldErrors : undefined);
    }
    case 401:
      return errors.missingApiKey();
    case 404: {
      const field = emptyTrailingParameter(req.method, req.path);
      return field ? errors.invalidField(field, 'must not be empty') : errors.noSuchRoute();
    }
    case 405:
      return errors.methodNotAllowed(err.headers?.Allow ?? err.headers?.allow ?? '');
    case 413:
      return errors.payloadTooLarge();
    case 415:
      return errors.unsupportedMediaType();
    default:
      // A client error the validator may add one day is still the client's, never a 500.
      return err.status >= 400 && err.status < 500 ? errors.invalidRequest(err.message) : errors.internal();
  }
}

/** The content codings body-parser decompresses on Node 20 (zstd needs Node 22.15). */
const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

/** The status an HTTP error carries (http-errors sets both names; zlib errors get one from body-parser). */
function httpStatus(err: any): number | undefined {
  const status = err?.status ?? err?.statusCode;
  return Number.isInteger(status) ? status : undefined;
}

/** body-parser's and raw-body's errors, told apart by their `type`; zlib's have none, only a 400 and a code. */
function fromBodyParser(err: any, req: Request): ApiError | null {
  switch (err?.type) {
    case 'entity.parse.failed':
      return errors.invalidJson(String(err.message));
    case 'entity.too.large':
      return errors.payloadTooLarge();
    case 'encoding.unsupported':
      return errors.unsupportedContentEncoding(String(err.encoding ?? 'unknown'), ACCEPTED_ENCODINGS);
    case 'charset.unsupported':
      return errors.unsupportedMediaType(
        `Charset ${String(err.charset ?? 'unknown').slice(0, 40)} is not supported; send the body in UTF-8.`,
      );
    case 'parameters.too.many':
      return errors.tooManyFormFields(MAX_FORM_FIELDS);
    case 'querystring.parse.rangeError':
      return errors.tooDeep(MAX_BODY_DEPTH);
    case 'request.size.invalid':
      return errors.invalidBody(
        `The body has ${String(err.received)} bytes, not the ${String(err.expected)} its Content-Length announced.`,
      );
    case 'request.aborted':
      return errors.bodyCutShort();
  }
  const status = httpStatus(err);
  if (status === undefined || status < 400 || status >= 500) return null;
  // A decompression stream's error: the body is not the Content-Encoding it claims.
  if (typeof err.errno === 'number' && typeof err.code === 'string') {
    const encoding = String(req.headers['content-encoding'] ?? 'compressed').slice(0, 40);
    return errors.invalidBody(`The body is not valid ${encoding} data (${String(err.message).slice(0, 200)}).`);
  }
  // Any other client error from a library: never a 500; its message only when it was made to be shown.
  if (status === 413) return errors.payloadTooLarge();
  if (status === 415) return errors.unsupportedMediaType();
  // (Express's router, for one, answers a path parameter it cannot decode with a bare 400.)
  return errors.invalidRequest(err.expose === false ? 'The request is not valid.' : String(err.message).slice(0, 200));
}

/** The problem+json body of an error, for Express responses and for raw ones written on a socket. */
export function problemBody(error: ApiError, requestId: string): string {
  return JSON.stringify({
    type: problemTypeUri(error.code),
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    request_id: requestId,
    ...(error.fieldErrors ? { errors: error.fieldErrors } : {}),
  });
}

function sendProblem(req: Request, res: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).type('application/problem+json').send(problemBody(error, req.id));
}

export function problemMiddleware(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  let error: ApiError;
  if (err instanceof ApiError) error = err;
  else if (isValidatorError(err)) error = fromValidator(err, req);
  else error = fromBodyParser(err, req) ?? errors.internal();
  // Error level is for the server's own faults; a client's mistake is already in the request's closing line.
  if (error.status >= 500)
    req.log.error({ err, violations: isValidatorError(err) ? err.errors : undefined }, 'request failed');
  sendProblem(req, res, error);
}
