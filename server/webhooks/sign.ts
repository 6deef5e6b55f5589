// Standard Webhooks signatures: base64 HMAC-SHA256 of "id.timestamp.body" keyed by the whsec_ secret's bytes.
import { createHmac } from 'node:crypto';
import { timeOrderedHex, timePrefixHex } from '../ids.js';

export function newWebhookId(now: number): string {
  return `msg_${timeOrderedHex(now)}`;
}

/** Ids of the webhook events recorded before `ms` sort below this one (events can be walked by age on their key). */
export function webhookIdsBefore(ms: number): string {
  return `msg_${timePrefixHex(ms)}`;
}

function signatureFor(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The three headers of a signed delivery; the timestamp is the attempt's (ms, by the clock), the id the event's. With
 * several secrets (a rotated one still valid), one signature per secret, space-separated, as Standard Webhooks allows.
 */
export function signedHeaders(
  secrets: string | readonly string[],
  id: string,
  body: string,
  now: number,
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': all.map((secret) => signatureFor(secret, id, timestamp, body)).join(' '),
  };
}
