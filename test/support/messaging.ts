// Shared by message, webhook and idempotency tests: a fast sandbox network and polling helpers, and a send's rows.
import type { TelephonyClient } from '../../client/index.js';
import type { MessageRow } from '../../server/store/schema.js';
import { dispatchJobRow } from '../../server/messages/pipeline.js';
import type { Send } from '../../server/messages/store.js';
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

let sids = 0;
/** An API send from `from` by `accountSid`, as MessageService queues it (for tests below the API). */
export function apiSend(accountSid: string, from: string, sid = `SMbatch${String(++sids).padStart(26, '0')}`): Send {
  const now = Date.now();
  const created = new Date(now).toISOString();
  const message: MessageRow = {
    sid,
    account_sid: accountSid,
    from_number: from,
    to_number: '+14155550199',
    body: 'hello',
    media_url: '[]',
    num_media: 0,
    num_segments: 1,
    status: 'queued',
    direction: 'outbound-api',
    channel: 'sms',
    price: null,
    price_unit: 'USD',
    error_code: null,
    error_message: null,
    send_at: null,
    validity_period: 14400,
    expires_at: new Date(now + 14_400_000).toISOString(),
    status_callback: null,
    origin_sid: null,
    date_created: created,
    date_updated: created,
    date_sent: null,
  };
  return { message, job: dispatchJobRow(message, undefined, now) };
}
