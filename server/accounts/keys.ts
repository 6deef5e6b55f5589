// API keys are long random secrets; only their SHA-256 digest is stored (their entropy makes a slow hash unnecessary).
import { createHash, randomBytes } from 'node:crypto';
import { newSecret } from '../ids.js';

export function newApiKey(): string {
  return newSecret('tk');
}

/** A key this server generated: `tk_` and 43 base64url characters (32 random bytes). */
const GENERATED_KEY = /^tk_[A-Za-z0-9_-]{43}$/;

/**
 * What the dashboard shows of a key: `tk_` and its next 6 characters (36 of its 256 random bits: no help to a
 * guesser). Only for keys generated here: a key an operator chose (TELEPHONY_API_KEY, 16 characters or more) could
 * give away much of itself, so none is kept for it.
 */
export function apiKeyPrefix(key: string): string | null {
  return GENERATED_KEY.test(key) ? key.slice(0, 9) : null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A Standard Webhooks signing secret: `whsec_` and base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
