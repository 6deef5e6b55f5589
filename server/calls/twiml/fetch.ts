// Fetching a call's instructions as Twilio does: the call's parameters form-encoded (POST) or in the query (GET),
// signed like our webhooks, through the same URL policy, address guard, timeout and 64 KB bound as their delivery.
import type { PrivateAddressPolicy } from '../../webhooks/address-guard.js';
import { sendRequest, type OutgoingRequest, type RequestResult } from '../../webhooks/deliver.js';
import { signedHeaders } from '../../webhooks/sign.js';
import { parseTwiml } from './parse.js';
import { MAX_SAY_CHARS } from './read-verbs.js';
import type { HttpMethod, Instructions } from './verbs.js';

export interface InstructionRequest {
  url: string;
  method: HttpMethod;
  /** Twilio's parameters (CallSid, From, To, CallStatus, Digits ...), as they are sent. */
  params: Record<string, string>;
  /** The account's webhook signing secret (whsec_...). */
  secret: string;
  /** The `webhook-id` header: one per fetch (newWebhookId), so a receiver can tell fetches apart. */
  webhookId: string;
  /** Now, in ms by the clock: the `webhook-timestamp` header. */
  timestamp: number;
  timeoutMs: number;
  privateAddresses: PrivateAddressPolicy;
}

type InstructionFetchError = 'instructions_fetch_failed' | 'invalid_instructions';

export type InstructionResult =
  { ok: true; instructions: Instructions } | { ok: false; errorCode: InstructionFetchError; errorMessage: string };

export async function fetchInstructions(request: InstructionRequest): Promise<InstructionResult> {
  const { url, method, params } = request;
  const form = new URLSearchParams(params).toString();
  // The signed content is the body sent: the form for a POST; a GET sends none, so the empty string is signed
  // (its parameters are in the URL, which Standard Webhooks does not sign).
  const signed = method === 'POST' ? form : '';
  const outgoing: OutgoingRequest = {
    method,
    url: method === 'GET' ? withQuery(url, form) : url,
    headers: signedHeaders(request.secret, request.webhookId, signed, request.timestamp),
    body: method === 'POST' ? { text: form, contentType: 'application/x-www-form-urlencoded' } : null,
    userAgent: 'telephony-calls/1',
    onOversize: 'stop',
  };
  const result = await sendRequest(outgoing, {
    timeoutMs: request.timeoutMs,
    privateAddresses: request.privateAddresses,
  });
  return answerOf(result, `${method} ${url}`, url);
}

function answerOf(result: RequestResult, what: string, url: string): InstructionResult {
  const failed = (why: string): InstructionResult => ({
    ok: false,
    errorCode: 'instructions_fetch_failed',
    errorMessage: `${what} ${why}`,
  });
  if (result.status === null) {
    const error = result.error ?? 'no answer';
    return failed(error.startsWith('refused') || error.startsWith('timed out') ? error : `failed: ${error}`);
  }
  if (!result.ok) return failed(`answered HTTP ${result.status}`);
  const type = result.contentType.split(';')[0].trim().toLowerCase();
  // Audio is played from its URL, never read here: its size does not matter.
  if (type.startsWith('audio/')) return document([{ verb: 'Play', url, digits: null, loop: 1 }], url);
  if (result.oversize) return failed('answered more than 64 KB');
  if (type === 'text/xml' || type === 'application/xml' || type === 'text/html') {
    const parsed = parseTwiml(result.body, url);
    if (parsed.ok) return parsed;
    return invalid(`the document from ${url} is not valid TwiML: ${parsed.error}`);
  }
  if (type === 'text/plain') {
    const text = result.body.trim();
    if (text.length >= 1 && text.length <= MAX_SAY_CHARS) {
      return document([{ verb: 'Say', text, voice: 'man', language: 'en-US', loop: 1 }], url);
    }
    return invalid(`the text from ${url} must be 1 to ${MAX_SAY_CHARS} characters to be said, got ${text.length}`);
  }
  return failed(`answered ${type ? `"${type}"` : 'no content type'}, not TwiML (text/xml), text/plain or audio`);
}

const document = (verbs: Instructions['verbs'], url: string): InstructionResult => ({
  ok: true,
  instructions: { verbs, url },
});

const invalid = (errorMessage: string): InstructionResult => ({
  ok: false,
  errorCode: 'invalid_instructions',
  errorMessage,
});

/** `url` with the form appended to its query (what it already has is kept as written). */
function withQuery(url: string, form: string): string {
  if (!form || !URL.canParse(url)) return url;
  const target = new URL(url);
  target.search = target.search ? `${target.search}&${form}` : `?${form}`;
  return target.href;
}
