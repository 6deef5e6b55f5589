// API keys are long random secrets; only their SHA-256 digest is stored (their entropy makes a slow hash unnecessary).
import { createHash, randomBytes } from 'node:crypto';
import { newSecret } from '../ids.js';

export function newApiKey(): string {
  return newSecret('tk');
}

/** What the dashboard shows of a key: `tk_` and its next 6 characters (36 bits of 256: no help to a guesser). */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 9);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A Standard Webhooks signing secret: `whsec_` and base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
