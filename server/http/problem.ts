// The one error middleware: our own errors, then the validator's and body parser's, then anything unknown.
import type { NextFunction, Request, Response } from 'express';
import { ApiError, errors, problemTypeUri, type FieldError } from '../errors.js';
import { emptyTrailingParameter, findOperation } from './spec.js';
import { FORM, MAX_BODY_DEPTH, MAX_FORM_FIELDS } from './body.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';

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
      const hint = hintFor(req, all);
      return errors.invalidRequest(hint ? `${detail}. ${hint}` : detail, fieldErrors.length ? fieldErrors : undefined);
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

/** The value a validator error points at (`/query/to`, `/body/from`), when it is a top-level string. */
function valueAt(req: Request, path: string): unknown {
  const match = /^\.?\/?(body|query)[/.]([^/.]+)$/.exec(path);
  if (!match) return undefined;
  const source = (match[1] === 'body' ? req.body : req.query) as Record<string, unknown> | undefined;
  return source && typeof source === 'object' ? source[match[2]] : undefined;
}

/** What the common mistakes behind a 400 are, said as their fix; null when none applies. */
function hintFor(req: Request, all: { path: string; message: string }[]): string | null {
  if (
    all.some((e) => {
      const value = valueAt(req, e.path);
      return typeof value === 'string' && /^ \d/.test(value);
    })
  ) {
    return (
      'A phone number arrived with a leading space: a `+` sent unencoded in a query or form means a space, ' +
      'encode it as %2B.'
    );
  }
  const body = req.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const keys = Object.keys(body);
  if (FORM.test(req.headers['content-type'] ?? '') && keys.some((key) => key.trimStart().startsWith('{'))) {
    return 'This form body looks like JSON: set Content-Type: application/json (curl -d sends a form otherwise).';
  }
  // Twilio's PascalCase names (From, To, Body, StatusCallback) where this operation takes snake_case ones.
  const schema: Record<string, { default?: unknown }> =
    findOperation(req.method, req.originalUrl.split('?')[0])?.bodySchema?.properties ?? {};
  const properties = Object.keys(schema);
  const renamed = keys
    .map((key) => key.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase())
    .filter((name, i) => name !== keys[i] && properties.includes(name) && !keys.includes(name));
  if (renamed.length) return `Field names are lowercase here: ${renamed.map((n) => `\`${n}\``).join(', ')}.`;
  const missing = all
    .map((e) => /must have required property '([^']+)'/.exec(e.message)?.[1])
    .filter((name): name is string => name !== undefined);
  // The validator has filled in the defaults by now: a body of nothing else was empty as sent.
  const sent = keys.filter((key) => schema[key]?.default === undefined || schema[key].default !== (body as any)[key]);
  if (missing.length && !sent.length) return `Send a JSON object with ${missing.map((n) => `\`${n}\``).join(', ')}.`;
  return null;
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
  // A client's body that broke off is the client's (fromBodyParser), though its error may carry ECONNRESET too.
  else
    error = fromBodyParser(err, req) ?? (isDatabaseUnavailable(err) ? errors.databaseUnavailable() : errors.internal());
  // Error level is for the server's own faults; a client's mistake is already in the request's closing line.
  if (error.status >= 500)
    req.log.error({ err, violations: isValidatorError(err) ? err.errors : undefined }, 'request failed');
  sendProblem(req, res, error);
}
