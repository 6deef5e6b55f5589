// The typed client: openapi-fetch over the generated `paths`, with the API key and both body encodings.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from '../generated/openapi.js';

export type { components, operations, paths };
export type TelephonyClient = Client<paths>;

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

export interface TelephonyClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Body encoding of every POST: JSON (default) or form fields; both are accepted by every endpoint. */
  encoding?: 'json' | 'form';
  fetch?: ClientOptions['fetch'];
  headers?: Record<string, string>;
}

/**
 * Form fields as the API expects them: repeated keys for arrays of values (`media_url=a&media_url=b`), brackets for
 * objects and arrays of objects (`participants[0][identifier]=...`).
 */
export function toFormBody(body: Record<string, unknown>): string {
  const form = new URLSearchParams();
  const add = (key: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => add(item !== null && typeof item === 'object' ? `${key}[${i}]` : key, item));
    } else if (typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) add(`${key}[${name}]`, item);
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      form.append(key, String(value));
    }
  };
  for (const [key, value] of Object.entries(body)) add(key, value);
  return form.toString();
}

function isForm(headers: unknown): boolean {
  const h = headers as Headers | Record<string, string> | undefined;
  const type = h instanceof Headers ? h.get('content-type') : (h?.['Content-Type'] ?? h?.['content-type']);
  return typeof type === 'string' && type.startsWith(FORM_CONTENT_TYPE);
}

export function createTelephonyClient(options: TelephonyClientOptions): TelephonyClient {
  const form = options.encoding === 'form';
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.fetch,
    headers: { Authorization: `Bearer ${options.apiKey}`, ...options.headers },
    // openapi-fetch calls this only with a request body, and every request body of the spec is an object.
    bodySerializer: (body: unknown, headers?: unknown) =>
      form || isForm(headers) ? toFormBody(body as Record<string, unknown>) : JSON.stringify(body),
  });
  if (form) {
    client.use({
      onRequest({ request }) {
        if (request.method !== 'GET' && request.method !== 'DELETE')
          request.headers.set('Content-Type', FORM_CONTENT_TYPE);
        return request;
      },
    });
  }
  return client;
}

/** A recording's WAV file (GET /v1/recordings/{sid}/media) as bytes: the one answer of the API that is not JSON. */
export function downloadRecording(client: TelephonyClient, sid: string) {
  return client.GET('/v1/recordings/{sid}/media', { params: { path: { sid } }, parseAs: 'arrayBuffer' });
}

export {
  verifyInstructionsRequest,
  verifyWebhook,
  WebhookVerificationError,
  type InstructionsParams,
  type CallEvent,
  type MessageEvent,
  type ProxyInteractionEvent,
  type ProxySessionEvent,
  type RecordingEvent,
  type VerificationEvent,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhooks.js';
