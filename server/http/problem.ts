// The one error middleware: our own errors, then the validator's and body parser's, then anything unknown.
import type { NextFunction, Request, Response } from 'express';
import { ApiError, errors, problemTypeUri, type FieldError } from '../errors.js';
import { emptyTrailingParameter } from './spec.js';

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

function fromValidator(err: ValidatorError, req: Request): ApiError {
  switch (err.status) {
    case 400: {
      const fieldErrors: FieldError[] = (err.errors ?? []).map((e) => ({
        field: fieldName(e.path),
        message: e.message,
      }));
      const detail = fieldErrors.length ? fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; ') : err.message;
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
      return errors.internal();
  }
}

function fromBodyParser(err: any): ApiError | null {
  switch (err?.type) {
    case 'entity.parse.failed':
      return errors.invalidJson(String(err.message));
    case 'entity.too.large':
      return errors.payloadTooLarge();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errors.unsupportedMediaType(String(err.message));
    case 'parameters.too.many':
      return errors.tooManyFormFields();
    default:
      return null;
  }
}

function sendProblem(req: Request, res: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res
    .status(error.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: problemTypeUri(error.code),
        title: error.title,
        status: error.status,
        detail: error.detail,
        code: error.code,
        request_id: req.id,
        ...(error.fieldErrors ? { errors: error.fieldErrors } : {}),
      }),
    );
}

export function problemMiddleware(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  let error: ApiError;
  if (err instanceof ApiError) error = err;
  else if (isValidatorError(err)) error = fromValidator(err, req);
  else error = fromBodyParser(err) ?? errors.internal();
  if (error.status >= 500)
    req.log.error({ err, violations: isValidatorError(err) ? err.errors : undefined }, 'request failed');
  sendProblem(req, res, error);
}
