// The webhooks this API sends, typed from the spec, and their verification (Standard Webhooks: an HMAC-SHA256 of
// `<webhook-id>.<webhook-timestamp>.<raw body>` keyed by the account's `whsec_` secret). Web Crypto only, so it runs
// in Node 20+, Deno, Bun, browsers and edge runtimes without a dependency.
import type { components } from '../generated/openapi.js';

type Schemas = components['schemas'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type MessageEvent = Schemas['MessageEvent'];
export type CallEvent = Schemas['CallEvent'];
export type RecordingEvent = Schemas['RecordingEvent'];
export type VerificationEvent = Schemas['VerificationEvent'];
export type ProxyInteractionEvent = Schemas['ProxyInteractionEvent'];
export type ProxySessionEvent = Schemas['ProxySessionEvent'];
export type WebhookEventType = WebhookEvent['type'];

/** Why a webhook was refused: no signature headers, a timestamp too old or too new, or no signature matching. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Request headers as Node (`req.headers`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the signed timestamp may be from now, in seconds (default 300, as Standard Webhooks advises). */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (for tests). */
  now?: number;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Equal bytes, in a time that does not depend on where they differ. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/**
 * Checks a webhook's signature with the account's `whsec_` secret and returns its event, typed: narrow it on
 * `event.type` (`if (event.type === 'message.delivered') event.data.sid ...`). `rawBody` must be the body exactly as
 * received (not parsed and serialized again). Throws `WebhookVerificationError` when the webhook is not genuine or
 * its timestamp is outside the tolerance (a replay). Several signatures (during a secret's rotation) are accepted
 * when any one matches.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  return JSON.parse(await checkSignature(rawBody, headers, secret, options)) as WebhookEvent;
}

/** The parameters of a call's instructions request, by Twilio's names (`CallSid`, `From`, `To`, `Digits`...). */
export type InstructionsParams = Record<string, string>;

/**
 * Checks the signature of a call's instructions request (the fetch of a call's `url`, a number's `voice_url`, a
 * verb's `action` or a `<Redirect>`), signed like a webhook, and returns its parameters. Give what the server signed:
 * for a POST the form body exactly as received; for a GET the full URL it requested (scheme, host, port, path and
 * query, as the URL you configured plus the query: behind a proxy, rebuild it as the server saw it). Throws
 * `WebhookVerificationError` as `verifyWebhook` does.
 */
export async function verifyInstructionsRequest(
  signed: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<InstructionsParams> {
  const text = await checkSignature(signed, headers, secret, options);
  const form = /^https?:\/\//i.test(text) ? new URL(text).searchParams : new URLSearchParams(text);
  const params: InstructionsParams = {};
  form.forEach((value, name) => (params[name] = value));
  return params;
}

/** The signed content as text, once its Standard Webhooks signature and timestamp are checked. */
async function checkSignature(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions,
): Promise<string> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, -timestamp or -signature');
  const seconds = Number(timestamp);
  const now = (options.now ?? Date.now()) / 1000;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isInteger(seconds) || Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp ${timestamp} is more than ${tolerance} s from now`);
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const key = await crypto.subtle.importKey(
    'raw',
    fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const expected = new Uint8Array(
    await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)),
  );
  const matches = signatures.split(' ').some((signature) => {
    const [version, mac] = signature.split(',', 2);
    if (version !== 'v1' || !mac) return false;
    try {
      return equalBytes(fromBase64(mac), expected);
    } catch {
      return false;
    }
  });
  if (!matches) throw new WebhookVerificationError('no signature matches the secret');
  return body;
}
