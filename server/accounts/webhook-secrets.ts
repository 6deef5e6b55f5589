// Webhook signing secrets are needed in clear to sign, so they are stored sealed with the server secret (bound to
// their account's sid), never in clear: a copy of the database alone cannot forge an account's webhooks.
import { seal, sealKey, unseal } from './seal.js';

/** How a sealed webhook secret starts, which no clear `whsec_` secret does. */
const SEALED = 'sealed:';

export class WebhookSecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = sealKey(serverSecret, 'telephony-accounts', 'webhook-secret-seal');
  }

  /** What the accounts table stores for this account's secret. */
  seal(accountSid: string, secret: string): string {
    return SEALED + seal(this.key, accountSid, secret);
  }

  /** The secret in clear; throws when `stored` is not a secret sealed by this box for this account. */
  open(accountSid: string, stored: string): string {
    if (!stored.startsWith(SEALED)) throw new Error(`the webhook secret of ${accountSid} is not sealed`);
    return unseal(this.key, accountSid, stored.slice(SEALED.length));
  }

  /** Whether `stored` is sealed (by any box): a clear one predates migration 009. */
  static isSealed(stored: string): boolean {
    return stored.startsWith(SEALED);
  }
}
