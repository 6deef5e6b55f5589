// Fetching a call's instructions as Twilio does: the call's parameters form-encoded (POST) or in the query (GET),
// signed like our webhooks, through the same URL policy, address guard, timeout and 64 KB bound as their delivery,
// following up to 5 redirects (each hop checked again).
import type { PrivateAddressPolicy } from '../../webhooks/address-guard.js';
import { sendRequest, type OutgoingRequest, type RequestResult } from '../../webhooks/deliver.js';
import { signedHeaders } from '../../webhooks/sign.js';
import { decodeDocument } from './decode.js';
import { parseTwiml } from './parse.js';
import { MAX_SAY_CHARS } from './read-verbs.js';
import type { HttpMethod, Instructions } from './verbs.js';

export interface InstructionRequest {
  url: string;
  method: HttpMethod;
  /** Twilio's parameters (CallSid, From, To, CallStatus, Digits ...), as they are sent. */
  params: Record<string, string>;
  /** The account's webhook signing secrets (whsec_...; a rotated one still valid too). */
  secret: readonly string[];
  /** The `webhook-id` header: one per fetch (newWebhookId), so a receiver can tell fetches apart. */
  webhookId: string;
  /** Now, in ms by the clock: the `webhook-timestamp` header. */
  timestamp: number;
  timeoutMs: number;
  privateAddresses: PrivateAddressPolicy;
}

type InstructionFetchError = 'instructions_fetch_failed' | 'invalid_instructions';

export type InstructionResult =
  | { ok: true; instructions: Instructions }
  | {
      ok: false;
      errorCode: InstructionFetchError;
      /** For the account (the call's error_message): never how the server resolved a name. */
      errorMessage: string;
      /** For the server's log only: the full reason, when the account's message leaves it out. */
      detail?: string;
    };

/** Twilio follows this many redirects of an instruction fetch. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface Hop {
  method: HttpMethod;
  url: string;
  /** The form sent as the body of a POST; null for a GET (its URL carries everything). */
  form: string | null;
}

export async function fetchInstructions(request: InstructionRequest): Promise<InstructionResult> {
  const { url, method, params } = request;
  const form = new URLSearchParams(params).toString();
  let hop: Hop = method === 'POST' ? { method, url, form } : { method, url: withQuery(url, form), form: null };
  let documentUrl = url;
  const what = `${method} ${url}`;
  for (let redirects = 0; ; redirects++) {
    const result = await send(request, hop);
    const said = redirects === 0 ? what : `${what} (redirected to ${documentUrl})`;
    if (result.status === null || !REDIRECTS.has(result.status)) return answerOf(result, said, documentUrl);
    const { location } = result;
    if (location === null || !URL.canParse(location, hop.url)) {
      return failed(said, `answered HTTP ${result.status} without a valid Location`);
    }
    if (redirects === MAX_REDIRECTS) return failed(what, `redirected more than ${MAX_REDIRECTS} times`);
    documentUrl = new URL(location, hop.url).href;
    // 303 always, and 301/302 after a POST as browsers do, switch to a GET; 307/308 repeat the request as it was.
    const toGet = result.status === 303 || (hop.method === 'POST' && result.status <= 302);
    hop = toGet ? { method: 'GET', url: documentUrl, form: null } : { ...hop, url: documentUrl };
  }
}

/**
 * One request, signed over what identifies its content: the form body of a POST, the full URL (query included,
 * fragment not) of a GET, as Twilio signs the URL.
 */
function send(request: InstructionRequest, hop: Hop): Promise<RequestResult> {
  // A fragment is never sent: the URL is signed as it is requested, without one.
  const url = hop.url.split('#', 1)[0];
  const signed = hop.form ?? url;
  const outgoing: OutgoingRequest = {
    method: hop.method,
    url,
    headers: signedHeaders(request.secret, request.webhookId, signed, request.timestamp),
    body: hop.form === null ? null : { text: hop.form, contentType: 'application/x-www-form-urlencoded' },
    userAgent: 'telephony-calls/1',
    onOversize: 'stop',
  };
  return sendRequest(outgoing, { timeoutMs: request.timeoutMs, privateAddresses: request.privateAddresses });
}

function answerOf(result: RequestResult, what: string, url: string): InstructionResult {
  if (result.status === null) return unanswered(result, what);
  if (!result.ok) return failed(what, `answered HTTP ${result.status}`);
  const type = result.contentType.split(';')[0].trim().toLowerCase();
  // Audio is played from its URL, never read here: its size does not matter.
  if (type.startsWith('audio/')) return document([{ verb: 'Play', url, digits: null, loop: 1 }], url);
  if (result.oversize) return failed(what, 'answered more than 64 KB');
  const isXml = type === 'text/xml' || type === 'application/xml' || type === 'text/html';
  if (!isXml && type !== 'text/plain') {
    return failed(
      what,
      `answered ${type ? `"${type}"` : 'no content type'}, not TwiML (text/xml), text/plain or audio`,
    );
  }
  const decoded = decodeDocument(result.raw, result.contentType);
  if (!decoded.ok) return invalid(`the document from ${url} cannot be read: ${decoded.error}`);
  if (isXml) {
    const parsed = parseTwiml(decoded.text, url);
    if (parsed.ok) return parsed;
    return invalid(`the document from ${url} is not valid TwiML: ${parsed.error}`);
  }
  const text = decoded.text.trim();
  if (text.length >= 1 && text.length <= MAX_SAY_CHARS) {
    return document([{ verb: 'Say', text, voice: 'man', language: 'en-US', loop: 1 }], url);
  }
  return invalid(`the text from ${url} must be 1 to ${MAX_SAY_CHARS} characters to be said, got ${text.length}`);
}

/** No answer: the account reads the kind of failure; how the server resolved the name stays in `detail`. */
export function unanswered(result: RequestResult, what: string): InstructionResult {
  const error = result.error ?? 'no answer';
  if (result.cause === 'private-address') return failed(what, "refused: the URL's host is not a public address", error);
  if (result.cause === 'unresolved') return failed(what, "failed: the URL's host could not be resolved", error);
  return failed(what, error.startsWith('refused') || error.startsWith('timed out') ? error : `failed: ${error}`);
}

const failed = (what: string, why: string, detail?: string): InstructionResult => ({
  ok: false,
  errorCode: 'instructions_fetch_failed',
  errorMessage: `${what} ${why}`,
  ...(detail === undefined ? {} : { detail }),
});

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
