// The error catalogue: every failure the API answers, with its HTTP status, stable code, title, and the
// explanation and remedy that /problems/{code} shows. Call sites use the named factories below, never a bare code.
import type { components } from '../generated/openapi.js';

/** A problem `code`; the spec's ProblemCode enum lists exactly the catalogue's keys. */
export type ErrorCode = components['schemas']['ProblemCode'];

export interface CatalogueEntry {
  status: number;
  title: string;
  /** What the code means, for the problem page. */
  explanation: string;
  /** What the caller can do about it. */
  remedy: string;
}

// Typed by the generated ProblemCode, so a code missing here or absent from the spec fails the typecheck.
export const CATALOGUE: Record<ErrorCode, CatalogueEntry> = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    explanation: 'A parameter is missing, malformed or out of range, or a rule between fields is broken.',
    remedy: 'Fix each field the errors list names (by its wire name) and send the request again.',
  },
  invalid_json: {
    status: 400,
    title: 'Malformed JSON body',
    explanation: 'The body was sent as JSON but does not parse.',
    remedy: 'Send a well-formed JSON document, or a form body with Content-Type application/x-www-form-urlencoded.',
  },
  invalid_body: {
    status: 400,
    title: 'Unreadable body',
    explanation:
      'The body cannot be read: its compressed data is corrupt, it ends before its Content-Length, it has more ' +
      'form fields than allowed, it is nested too deeply, or its text is not well-formed Unicode (a lone ' +
      'surrogate, such as JSON\'s "\\ud800").',
    remedy: 'Send the body whole, uncompressed or correctly compressed, within the limits the detail names.',
  },
  batch_too_large: {
    status: 400,
    title: 'Batch too large',
    explanation: 'A batch request holds more items than one request may carry.',
    remedy: 'Split the items over several requests; the detail gives the limit.',
  },
  url_not_allowed: {
    status: 400,
    title: 'URL not allowed',
    explanation:
      'A URL the API would call (a webhook, instructions, media) is not http or https, carries a user name or ' +
      'password, or its host is a private, loopback, link-local or otherwise non-public IP address.',
    remedy:
      'Give a public http(s) URL without credentials in the field the errors list names; the server setting ' +
      'WEBHOOK_ALLOW_PRIVATE decides which non-public addresses are allowed.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    explanation: 'The request has no API key, or the key is not valid or has been revoked.',
    remedy: 'Send "Authorization: Bearer <API_KEY>" with a current key of your account.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    explanation: "There is no such route, or no such resource in your account (another account's sid is not found).",
    remedy: 'Check the path and the sid; list the resources of your account to find the right one.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    explanation: 'The path exists, but not with this HTTP method.',
    remedy: 'Use one of the methods the Allow header lists.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    explanation: "The request's headers or body did not arrive in time; the server closed the connection.",
    remedy: 'Send the whole request promptly on a new connection.',
  },
  idempotency_key_reused: {
    status: 409,
    title: 'Idempotency key reused',
    explanation: 'This Idempotency-Key was used within 24 hours with a different request body.',
    remedy: 'Use a new key for a new request; repeat a key only with the same body.',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Idempotency key in use',
    explanation: 'A request with this Idempotency-Key is still running.',
    remedy: 'Retry with the same key once the first request has finished; you then get its response.',
  },
  number_unavailable: {
    status: 409,
    title: 'Number unavailable',
    explanation: 'The phone number is held by an account, or the inventory does not offer it.',
    remedy: 'Search for available numbers and provision one from the results.',
  },
  message_in_flight: {
    status: 409,
    title: 'Message in flight',
    explanation: 'The message is not in a final state yet, so it cannot be deleted.',
    remedy: 'Retry once the message is delivered, undelivered, failed, read or canceled.',
  },
  address_in_use: {
    status: 409,
    title: 'Address in use',
    explanation: 'A phone number of your account uses this address, so it cannot be deleted.',
    remedy: 'Release the number, or give it another AddressSid, then delete the address.',
  },
  verification_not_pending: {
    status: 409,
    title: 'Verification not pending',
    explanation: 'The verification has already ended (approved, canceled, expired or out of attempts).',
    remedy: 'Send a new verification code.',
  },
  call_not_modifiable: {
    status: 409,
    title: 'Call not modifiable',
    explanation: 'The call has ended, or it was answered and can no longer be canceled.',
    remedy: 'Fetch the call to see its status; complete an answered call instead of canceling it.',
  },
  unique_name_in_use: {
    status: 409,
    title: 'Unique name in use',
    explanation: 'An open proxy session of your account already has this unique_name.',
    remedy: 'Choose another unique_name, or close the open session first.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    explanation: 'The request body is larger than 1 MB.',
    remedy: 'Send a smaller body; split batches over several requests.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    explanation: 'The body is neither JSON nor a form, or uses a character set the API does not read.',
    remedy: 'Send Content-Type application/json or application/x-www-form-urlencoded, in UTF-8.',
  },
  regulatory_requirements: {
    status: 422,
    title: 'Regulatory requirements not met',
    explanation: 'Numbers in this country require a verified address of your account, and none was given or found.',
    remedy: 'Submit an address (POST /v1/addresses); once verified, pass its sid as AddressSid.',
  },
  address_pending: {
    status: 422,
    title: 'Address pending verification',
    explanation:
      'Numbers in this country require a verified address of your account, and the one that meets the requirement ' +
      'is still pending verification.',
    remedy:
      'Wait for its verification (typically within 1 business day; GET /v1/addresses/{sid} shows its status), ' +
      'then provision again.',
  },
  address_not_found: {
    status: 422,
    title: 'Address not found',
    explanation: 'The AddressSid given is not an address of your account.',
    remedy: 'Pass the sid of one of your addresses (GET /v1/addresses lists them).',
  },
  from_number_not_owned: {
    status: 422,
    title: 'From number not owned',
    explanation: 'The from number is not a phone number of your account.',
    remedy: 'Send from a number of your account (GET /v1/incoming-phone-numbers lists them), or provision one.',
  },
  from_number_not_capable: {
    status: 422,
    title: 'From number not capable',
    explanation: 'The from number cannot send this kind of message: its capabilities do not include SMS (or MMS).',
    remedy:
      'Send from a number whose capabilities include it (GET /v1/incoming-phone-numbers shows them; search with ' +
      'sms_enabled or mms_enabled), or send without media_url when only MMS is missing.',
  },
  to_number_not_owned: {
    status: 422,
    title: 'To number not owned',
    explanation: 'The to number of a sandbox inbound message is not a phone number of your account.',
    remedy: 'Inject inbound messages to a number of your account.',
  },
  destination_blocked: {
    status: 422,
    title: 'Destination blocked',
    explanation:
      'The number cannot receive verification codes: it is not a valid mobile number, or fraud protection blocks it.',
    remedy: 'Ask the user for another number; the detail says why this one was refused.',
  },
  no_proxy_number_available: {
    status: 422,
    title: 'No proxy number available',
    explanation: 'No number of your proxy pool is free for this pair of participants.',
    remedy: 'Provision another number for the pool, or close sessions you no longer need.',
  },
  number_quota_exceeded: {
    status: 422,
    title: 'Number quota exceeded',
    explanation: 'Your account holds as many phone numbers as it may (the MAX_NUMBERS_PER_ACCOUNT setting).',
    remedy: 'Release numbers you no longer use, or ask the operator to raise the quota.',
  },
  message_queue_full: {
    status: 422,
    title: 'Message queue full',
    explanation:
      'Your account has as many messages queued (waiting to be sent, scheduled ones included) as it may ' +
      '(the MAX_QUEUED_MESSAGES setting).',
    remedy:
      'Wait until queued messages are sent, or cancel scheduled ones (DELETE), then retry; or ask the operator ' +
      'to raise the quota.',
  },
  proxy_session_quota_exceeded: {
    status: 422,
    title: 'Proxy session quota exceeded',
    explanation: 'Your account has as many open proxy sessions as it may (the MAX_OPEN_PROXY_SESSIONS setting).',
    remedy: 'Close sessions you no longer need, or ask the operator to raise the quota.',
  },
  channel_unavailable: {
    status: 422,
    title: 'Channel unavailable',
    explanation:
      'The carrier this server runs on does not offer the channel: the SMPP carrier (a real SMSC) carries SMS ' +
      'only, so MMS, RCS, media, voice and WhatsApp verifications and calls are refused.',
    remedy: 'Send an SMS (text only), or verify by sms; or use a server whose carrier offers the channel.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limited',
    explanation: 'Your account sent requests faster than its limit, or reached its hourly cap of verification sends.',
    remedy: 'Wait the seconds the Retry-After header gives, then retry.',
  },
  max_send_attempts_reached: {
    status: 429,
    title: 'Too many codes sent',
    explanation: 'Too many verification codes were sent to this number within a short window.',
    remedy: 'Wait the seconds the Retry-After header gives before sending another code to this number.',
  },
  max_check_attempts_reached: {
    status: 429,
    title: 'Too many wrong codes',
    explanation: 'The verification ended after too many wrong codes; waiting does not reopen it.',
    remedy: 'Send a new verification code.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    explanation: "The request's headers are larger than the server reads (16 KB); the server closed the connection.",
    remedy: 'Send fewer or shorter headers (a long cookie or a repeated header is the usual cause).',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    explanation: "A fault on the server's side, not in your request. It has been logged under the request id.",
    remedy: 'Retry later; if it persists, report it with the request_id.',
  },
  not_implemented: {
    status: 501,
    title: 'Not implemented',
    explanation: 'The operation is in the API description but not implemented in this build yet.',
    remedy: 'Use a build that implements it; the detail names the operation.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    explanation: 'This instance cannot serve traffic now: a dependency such as its database does not answer.',
    remedy: 'Retry later or on another instance; the operator should check the dependency the detail names.',
  },
};

/**
 * A problem's `type`: a relative reference to its page, so it resolves against whatever base URL the client used
 * (behind a proxy too) and stays the same identifier on every host.
 */
export const problemTypeUri = (code: ErrorCode): string => `/problems/${code}`;

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly fieldErrors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = CATALOGUE[code].status;
    this.title = CATALOGUE[code].title;
  }
}

const retryAfter = (seconds: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(seconds))) });
/** How long a client is told to wait after the database did not answer: about readiness's own polling. */
const DATABASE_RETRY_AFTER_S = 5;
const notFound = (detail: string) => new ApiError('not_found', detail);

export const errors = {
  // 400
  invalidRequest: (detail: string, fieldErrors?: FieldError[]) => new ApiError('invalid_request', detail, fieldErrors),
  invalidField: (field: string, message: string) =>
    new ApiError('invalid_request', `${field}: ${message}`, [{ field, message }]),
  /** A body that could not be read or decoded; `detail` names what was wrong with it. */
  invalidBody: (detail: string) => new ApiError('invalid_body', detail),
  tooManyFormFields: (max: number) => new ApiError('invalid_body', `The form has more than ${max} fields.`),
  /** Said alike by the body parser (the request aborted) and the HTTP parser (the connection half-closed). */
  bodyCutShort: () => new ApiError('invalid_body', 'The request ended before its body was complete.'),
  tooDeep: (max: number) => new ApiError('invalid_body', `The body is nested more than ${max} levels deep.`),
  illFormedText: (path: string, codePoint: number) =>
    new ApiError(
      'invalid_body',
      `\`${path}\` is not well-formed Unicode text: it holds a lone surrogate ` +
        `(U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}).`,
    ),
  invalidJson: (parserMessage: string) =>
    new ApiError('invalid_json', `The body is not valid JSON: ${parserMessage.slice(0, 200)}`),
  batchTooLarge: (field: string, max: number, got: number) =>
    new ApiError('batch_too_large', `${field}: at most ${max} items per request, got ${got}.`, [
      { field, message: `must have at most ${max} items` },
    ]),
  /** `reason` completes "<field> ..." (from url-policy.ts's checkUrl). */
  urlNotAllowed: (field: string, reason: string) =>
    new ApiError('url_not_allowed', `${field}: ${reason}.`, [{ field, message: reason }]),
  // 401
  missingApiKey: () =>
    new ApiError('unauthorized', 'A valid API key is required: send "Authorization: Bearer <API_KEY>".', undefined, {
      'WWW-Authenticate': 'Bearer',
    }),
  invalidApiKey: () =>
    new ApiError('unauthorized', 'The API key is not valid or has been revoked.', undefined, {
      'WWW-Authenticate': 'Bearer',
    }),
  // 404
  noSuchRoute: () => notFound('No such route.'),
  noSuchProblemCode: (code: string) => notFound(`No problem code ${code}; GET /problems lists them all.`),
  noSuchAccount: () => notFound('No such account.'),
  noSuchMessage: (sid: string) => notFound(`No message ${sid} in your account.`),
  noSuchAddress: (sid: string) => notFound(`No address ${sid} in your account.`),
  noSuchIncomingNumber: (sid: string) => notFound(`No incoming phone number ${sid} in your account.`),
  noSuchCall: (sid: string) => notFound(`No call ${sid} in your account.`),
  noSuchRecording: (sid: string) => notFound(`No recording ${sid} in your account.`),
  recordingNotReady: (sid: string, status: string) =>
    notFound(`Recording ${sid} is ${status}: its audio exists only once it is completed.`),
  noSuchProxySession: (sid: string) => notFound(`No proxy session ${sid} in your account.`),
  noSuchVerification: (sid: string) => notFound(`No verification ${sid} in your account.`),
  noVerificationSentTo: (to: string) => notFound(`No verification was sent to ${to}.`),
  noPendingVerificationTo: (to: string, latestStatus: string) =>
    notFound(`No pending verification to ${to}: the latest one is ${latestStatus}.`),
  countryNotInInventory: (iso: string, covered: readonly string[]) =>
    notFound(`The inventory does not cover ${iso}; it covers ${covered.join(', ')}.`),
  sandboxInactive: () => notFound('The sandbox routes exist only while the sandbox carrier is active.'),
  noSandboxCodeFor: (to: string) => notFound(`The sandbox delivered no verification code to ${to} for your account.`),
  // 405
  methodNotAllowed: (allow: string) =>
    new ApiError('method_not_allowed', `Allowed methods: ${allow}.`, undefined, { Allow: allow }),
  // 408
  requestTimeout: () => new ApiError('request_timeout', 'The request did not arrive in time.'),
  // 409
  idempotencyKeyReused: () =>
    new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used within 24 hours with a different request body.',
    ),
  idempotencyKeyInUse: () =>
    new ApiError(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still running; retry when it has finished.',
    ),
  numberUnavailable: (number: string) =>
    new ApiError(
      'number_unavailable',
      `${number} is not available: it is held by an account, or not offered by the ` +
        'inventory. Search for available numbers first.',
    ),
  messageInFlight: (sid: string, status: string) =>
    new ApiError('message_in_flight', `Message ${sid} is ${status} and not in a final state yet; retry once it is.`),
  addressInUse: (sid: string) =>
    new ApiError(
      'address_in_use',
      `A number of your account uses address ${sid}: release the number, or give it another AddressSid, first.`,
    ),
  verificationNotPending: (sid: string, status: string) =>
    new ApiError('verification_not_pending', `Verification ${sid} is ${status}, no longer pending.`),
  callNotModifiable: (sid: string, status: string, why = '') =>
    new ApiError('call_not_modifiable', `Call ${sid} is ${status}${why}.`),
  uniqueNameInUse: (name: string) =>
    new ApiError('unique_name_in_use', `An open proxy session of your account already has unique_name ${name}.`),
  // 413, 415
  payloadTooLarge: () => new ApiError('payload_too_large', 'The request body is larger than 1 MB.'),
  /** Answers a Content-Encoding the server cannot decompress, listing the ones it can (RFC 9110, 15.5.16). */
  unsupportedContentEncoding: (encoding: string, accepted: string) =>
    new ApiError(
      'unsupported_media_type',
      `Content-Encoding ${encoding.slice(0, 40)} is not supported; send the body uncompressed or as ${accepted}.`,
      undefined,
      { 'Accept-Encoding': accepted },
    ),
  unsupportedMediaType: (detail = 'Send application/json or application/x-www-form-urlencoded.') =>
    new ApiError('unsupported_media_type', detail),
  // 422
  /** `reason` says what is wrong with the address given, when one was; `remedy` what the country needs. */
  regulatoryRequirements: (remedy: string, reason?: string) =>
    new ApiError('regulatory_requirements', reason ? `${reason} ${remedy}` : remedy),
  addressPending: (sid: string, isoCountry: string) =>
    new ApiError(
      'address_pending',
      `Numbers in ${isoCountry} require a verified address of your account; address ${sid} is still pending ` +
        `verification (typically within 1 business day). Provision again once it is verified.`,
    ),
  addressNotFound: (sid: string) =>
    new ApiError('address_not_found', `AddressSid ${sid} is not an address of your account.`),
  fromNumberNotOwned: (number: string) =>
    new ApiError('from_number_not_owned', `${number} is not a number of your account.`),
  fromNumberNotCapable: (number: string, capability: 'SMS' | 'MMS') =>
    new ApiError('from_number_not_capable', `${number} cannot send ${capability}: its capabilities do not include it.`),
  toNumberNotOwned: (number: string) =>
    new ApiError('to_number_not_owned', `${number} is not a number of your account.`),
  destinationBlocked: (reason: string) => new ApiError('destination_blocked', reason),
  numberQuotaExceeded: (max: number) =>
    new ApiError('number_quota_exceeded', `Your account holds ${max} numbers, its quota; release one first.`),
  messageQueueFull: (max: number) =>
    new ApiError(
      'message_queue_full',
      `Your account has ${max} messages queued, its quota; wait until some are sent, or cancel scheduled ones.`,
    ),
  noProxyNumberAvailable: (identifier: string, mode: string) =>
    new ApiError(
      'no_proxy_number_available',
      `No number of your account that can serve a ${mode} session is free for ${identifier}: provision another, ` +
        'or close sessions you no longer need.',
    ),
  proxySessionQuotaExceeded: (max: number) =>
    new ApiError(
      'proxy_session_quota_exceeded',
      `Your account has ${max} open proxy sessions, its quota; close one first.`,
    ),
  channelUnavailable: (what: string, carrier: string) =>
    new ApiError('channel_unavailable', `${what} is not available on the ${carrier} carrier this server runs on.`),
  // 429
  /** The request rate limit (server/http/rate-limit.ts); `headers` carries its RateLimit-* fields. */
  rateLimited: (retryAfterSeconds: number, headers: Record<string, string>) =>
    new ApiError('rate_limited', 'Your account sent requests faster than its rate limit; slow down.', undefined, {
      ...headers,
      ...retryAfter(retryAfterSeconds),
    }),
  verificationSendCapReached: (cap: number, retryAfterSeconds: number) =>
    new ApiError(
      'rate_limited',
      `Your account reached its cap of ${cap} verification sends per hour.`,
      undefined,
      retryAfter(retryAfterSeconds),
    ),
  maxSendAttemptsReached: (to: string, sends: number, windowMinutes: number, retryAfterSeconds: number) =>
    new ApiError(
      'max_send_attempts_reached',
      `${sends} codes were already sent to ${to} within ${windowMinutes} minutes; wait before sending another.`,
      undefined,
      retryAfter(retryAfterSeconds),
    ),
  /** No Retry-After: waiting does not reopen the verification. */
  maxCheckAttemptsReached: (sid: string, wrongCodes: number) =>
    new ApiError(
      'max_check_attempts_reached',
      `Verification ${sid} ended after ${wrongCodes} wrong codes; send a new code.`,
    ),
  // 431
  headersTooLarge: () => new ApiError('headers_too_large', 'The request headers are larger than 16 KB.'),
  // 5xx
  internal: () => new ApiError('internal_error', 'An unexpected error occurred; it has been logged.'),
  notImplemented: (operationId: string) =>
    new ApiError('not_implemented', `${operationId} is not implemented yet in this build.`),
  /** `/readyz`: the instance cannot serve traffic; `reason` says which dependency failed, or that it is stopping. */
  notReady: (reason: string) => new ApiError('service_unavailable', reason),
  databaseUnavailable: () =>
    new ApiError(
      'service_unavailable',
      'The database did not answer in time; retry shortly.',
      undefined,
      retryAfter(DATABASE_RETRY_AFTER_S),
    ),
};
