// Shared by message, webhook and idempotency tests: a fast sandbox network and polling helpers.
import type { TelephonyClient } from '../../client/index.js';
import { waitForStatusOf } from './wait.js';

/** Sandbox delays of a few tens of milliseconds and a fast webhook retry schedule. */
export const FAST_PIPELINE: Record<string, string> = {
  SANDBOX_SENT_DELAY_MS: '20',
  SANDBOX_DELIVERY_DELAY_MS: '30',
  SANDBOX_READ_DELAY_MS: '30',
  SANDBOX_SLOW_DELIVERY_MS: '800',
  SANDBOX_MESSAGES_PER_SECOND: '1000',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_TIMEOUT_MS: '2000',
};

/** Polls GET /v1/messages/{sid} until the message reaches `status`. */
export async function waitForStatus(client: TelephonyClient, sid: string, status: string, timeoutMs = 20_000) {
  const read = async () => (await client.GET('/v1/messages/{sid}', { params: { path: { sid } } })).data;
  return waitForStatusOf(read, status, timeoutMs, `message ${sid} to be ${status}`);
}
