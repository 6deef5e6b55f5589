// The dashboard bench's data, written straight into the bench server's database (Kysely, batched in one
// transaction): an account with 100,000 messages over 100 days, calls, verifications and proxy sessions, and
// webhook events with attempts for the newest message. Runs inside the server's process (target.ts `seed`).
import type { Insertable } from 'kysely';
import type { Services } from '../../server/services.js';
import type { Database } from '../../server/store/schema.js';
import { newSid } from '../../server/ids.js';

const MESSAGES = 100_000;
const CALLS = 10_000;
const VERIFICATIONS = 10_000;
const PROXY_SESSIONS = 2_000;
const BATCH = 500;
const SPAN_MS = 100 * 86_400_000;

const MESSAGE_STATUSES = ['delivered', 'delivered', 'delivered', 'sent', 'undelivered', 'failed', 'received'] as const;
const CALL_STATUSES = ['completed', 'completed', 'busy', 'no-answer', 'failed'] as const;
// Never `pending`: an account has one pending verification per number at most.
const VERIFICATION_STATUSES = ['approved', 'approved', 'expired', 'canceled', 'failed'] as const;

/** What the scenario needs to build its page URLs. */
export interface Seeded {
  messageSid: string;
  callSid: string;
  verificationSid: string;
  proxySessionSid: string;
  /** A recipient of about 1 in 1000 messages (a selective filter). */
  rareTo: string;
  /** The seed's own duration, ms. */
  ms: number;
}

async function insertAll<T extends keyof Database>(services: Services, table: T, rows: Insertable<Database[T]>[]) {
  await services.store.transaction(async (tx) => {
    for (let i = 0; i < rows.length; i += BATCH) {
      await tx.db
        .insertInto(table)
        .values(rows.slice(i, i + BATCH))
        .execute();
    }
  });
}

/** `i` of `count` spread over the last 100 days, oldest first. */
function spread(now: number, i: number, count: number): number {
  return now - SPAN_MS + Math.floor((i / count) * SPAN_MS);
}

export async function seed(services: Services, accountSid: string): Promise<Seeded> {
  const started = performance.now();
  const now = services.clock.now();
  const to = (i: number) => `+1415555${String(i % 1000).padStart(4, '0')}`;
  const messages = Array.from({ length: MESSAGES }, (_, i) => {
    const at = spread(now, i, MESSAGES);
    const iso = new Date(at).toISOString();
    const status = MESSAGE_STATUSES[i % MESSAGE_STATUSES.length];
    return {
      sid: newSid('message', at),
      account_sid: accountSid,
      from_number: `+1212555${String(i % 50).padStart(4, '0')}`,
      to_number: to(i),
      body: `bench message ${i}`,
      media_url: '[]',
      num_media: 0,
      num_segments: 1,
      status,
      direction: status === 'received' ? ('inbound' as const) : ('outbound-api' as const),
      channel: 'sms' as const,
      price: 0.0079,
      price_unit: 'USD',
      error_code: status === 'failed' ? 'invalid_destination' : null,
      error_message: null,
      send_at: null,
      validity_period: 14_400,
      expires_at: new Date(at + 14_400_000).toISOString(),
      status_callback: null,
      origin_sid: null,
      date_created: iso,
      date_updated: iso,
      date_sent: iso,
    };
  });
  await insertAll(services, 'messages', messages);
  const calls = Array.from({ length: CALLS }, (_, i) => {
    const at = spread(now, i, CALLS);
    const iso = new Date(at).toISOString();
    return {
      sid: newSid('call', at),
      account_sid: accountSid,
      parent_call_sid: null,
      from_number: '+12125550001',
      to_number: to(i),
      direction: 'outbound-api' as const,
      status: CALL_STATUSES[i % CALL_STATUSES.length],
      answered_by: null,
      url: null,
      method: null,
      twiml: '<Response><Hangup/></Response>',
      status_callback: null,
      status_callback_events: null,
      recording_status_callback: null,
      record: 0,
      recording_channels: 1,
      timeout: 60,
      time_limit: 14_400,
      duration: 30,
      start_time: iso,
      end_time: iso,
      price: 0.013,
      price_unit: 'USD',
      error_code: null,
      error_message: null,
      peer_sid: null,
      purpose: 'api' as const,
      machine: null,
      step: 0,
      date_created: iso,
      date_updated: iso,
    };
  });
  await insertAll(services, 'calls', calls);
  const verifications = Array.from({ length: VERIFICATIONS }, (_, i) => {
    const at = spread(now, i, VERIFICATIONS);
    const iso = new Date(at).toISOString();
    return {
      sid: newSid('verification', at),
      account_sid: accountSid,
      to_number: to(i + 1),
      channel: 'sms' as const,
      status: VERIFICATION_STATUSES[i % VERIFICATION_STATUSES.length],
      locale: 'en',
      custom_message: null,
      code_length: 6,
      code_hash: 'bench',
      code_sealed: null,
      check_attempts: 0,
      valid_for: 600,
      line_type: null,
      carrier_name: null,
      date_expires: new Date(now + 86_400_000).toISOString(),
      date_created: iso,
      date_updated: iso,
    };
  });
  await insertAll(services, 'verifications', verifications);
  const sessions = Array.from({ length: PROXY_SESSIONS }, (_, i) => {
    const at = spread(now, i, PROXY_SESSIONS);
    const iso = new Date(at).toISOString();
    return {
      sid: newSid('proxySession', at),
      account_sid: accountSid,
      unique_name: `order ${i}`,
      status: 'closed' as const,
      mode: 'message-only' as const,
      ttl: 3600,
      callback_url: null,
      date_expiry: null,
      closed_reason: 'ended' as const,
      date_created: iso,
      date_updated: iso,
      date_ended: iso,
    };
  });
  await insertAll(services, 'proxy_sessions', sessions);

  // The newest message's webhooks: three events, the first answered 500 then 200.
  const newest = messages[messages.length - 1];
  const events = ['sending', 'sent', 'delivered'].map((status, i) => ({
    id: `msg_${newest.sid.slice(2, 24)}${String(i).padStart(10, '0')}`,
    account_sid: accountSid,
    resource_sid: newest.sid,
    type: `message.${status}`,
    url: 'https://example.com/webhooks',
    payload: '{}',
    status: 'delivered' as const,
    attempts: i === 0 ? 2 : 1,
    on_response: null,
    date_created: newest.date_created,
    date_updated: newest.date_created,
    run_at: newest.date_created,
    locked_by: null,
    locked_until: null,
  }));
  await insertAll(services, 'webhook_events', events);
  const attempts = events.flatMap((e, i) =>
    (i === 0 ? [500, 200] : [200]).map((status, n) => ({
      event_id: e.id,
      attempt: n + 1,
      date_attempted: e.date_created,
      duration_ms: 12,
      response_status: status,
      error: status === 200 ? null : 'HTTP 500',
      response_excerpt: status === 200 ? 'ok' : 'try later',
    })),
  );
  await insertAll(services, 'webhook_attempts', attempts);

  return {
    messageSid: newest.sid,
    callSid: calls[calls.length - 1].sid,
    verificationSid: verifications[verifications.length - 1].sid,
    proxySessionSid: sessions[sessions.length - 1].sid,
    rareTo: to(7),
    ms: performance.now() - started,
  };
}
