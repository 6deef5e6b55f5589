// The error catalogue: every failure the API reports, its HTTP status and stable code, defined once.

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly fieldErrors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export const errors = {
  invalidRequest: (detail: string, fieldErrors?: FieldError[]) =>
    new ApiError(400, 'invalid_request', 'Invalid request', detail, fieldErrors),
  invalidField: (field: string, message: string) =>
    new ApiError(400, 'invalid_request', 'Invalid request', `${field}: ${message}`, [{ field, message }]),
  batchTooLarge: (field: string, max: number, got: number) =>
    new ApiError(400, 'batch_too_large', 'Batch too large', `${field}: at most ${max} items per request, got ${got}.`, [
      { field, message: `must have at most ${max} items` },
    ]),
  invalidJson: (detail: string) => new ApiError(400, 'invalid_json', 'Malformed JSON body', detail),
  unauthorized: (detail = 'A valid API key is required: send "Authorization: Bearer <API_KEY>".') =>
    new ApiError(401, 'unauthorized', 'Unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer' }),
  notFound: (detail = 'The requested resource does not exist.') => new ApiError(404, 'not_found', 'Not found', detail),
  methodNotAllowed: (allow: string) =>
    new ApiError(405, 'method_not_allowed', 'Method not allowed', `Allowed methods: ${allow}.`, undefined, { Allow: allow }),
  conflict: (code: string, detail: string) => new ApiError(409, code, 'Conflict', detail),
  payloadTooLarge: (detail = 'The request body is larger than 1 MB.') =>
    new ApiError(413, 'payload_too_large', 'Payload too large', detail),
  unsupportedMediaType: (detail = 'Send application/json or application/x-www-form-urlencoded.') =>
    new ApiError(415, 'unsupported_media_type', 'Unsupported media type', detail),
  unprocessable: (code: string, detail: string) => new ApiError(422, code, 'Unprocessable request', detail),
  tooManyRequests: (code: string, detail: string, retryAfterSeconds: number) =>
    new ApiError(429, code, 'Too many requests', detail, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) }),
  /** A 429 where waiting does not help (no Retry-After), e.g. a verification ended by too many wrong codes. */
  attemptsExhausted: (code: string, detail: string) => new ApiError(429, code, 'Too many attempts', detail),
  internal: () => new ApiError(500, 'internal_error', 'Internal server error', 'An unexpected error occurred; it has been logged.'),
  notImplemented: (operationId: string) =>
    new ApiError(501, 'not_implemented', 'Not implemented', `${operationId} is not implemented yet in this build.`),
  unavailable: (detail: string) => new ApiError(503, 'service_unavailable', 'Service unavailable', detail),
};
