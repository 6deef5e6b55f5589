// Row types of every table, as Kysely sees them. Booleans are 0/1 integers and JSON is text on both engines.
import type { Generated } from 'kysely';

export interface AccountRow {
  sid: string;
  name: string;
  webhook_secret: string;
  date_created: string;
  date_updated: string;
  /** The secret before the last rotation (sealed), valid until `previous_webhook_secret_expires`. */
  previous_webhook_secret?: string | null;
  previous_webhook_secret_expires?: string | null;
}

export interface ApiKeyRow {
  sid: string;
  account_sid: string;
  key_hash: string;
  /** The key's first characters (`tk_` and 6 more), to tell keys apart; null for keys made before migration 015. */
  prefix: string | null;
  date_created: string;
  date_revoked: string | null;
}

export interface JobRow {
  id: Generated<number>;
  kind: string;
  payload: string;
  run_at: string;
  attempts: Generated<number>;
  max_attempts: number;
  ordering_key: string | null;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  dead: Generated<number>;
  /** Claims since the job last had an outcome (ran to an end, failed, moved on): JOB_MAX_CLAIMS at most. */
  claims: Generated<number>;
  date_created: string;
}

interface ServerSettingRow {
  name: string;
  value: string;
}

export interface AddressRow {
  sid: string;
  account_sid: string;
  friendly_name: string | null;
  customer_name: string;
  street: string;
  city: string;
  region: string;
  postal_code: string;
  iso_country: string;
  status: 'pending' | 'verified' | 'rejected';
  rejection_reason: string | null;
  date_created: string;
  date_updated: string;
}

export interface IncomingNumberRow {
  sid: string;
  account_sid: string;
  phone_number: string;
  friendly_name: string;
  sms_url: string | null;
  sms_method: 'GET' | 'POST';
  voice_url: string | null;
  voice_method: 'GET' | 'POST';
  status_callback: string | null;
  /** JSON: {"voice": bool, "sms": bool, "mms": bool} */
  capabilities: string;
  iso_country: string;
  number_type: 'local' | 'mobile' | 'toll_free';
  address_sid: string | null;
  address_requirements: 'none' | 'any' | 'local';
  date_created: string;
  date_updated: string;
}

export type MessageStatus =
  | 'queued'
  | 'sending'
  | 'sent'
  | 'delivered'
  | 'undelivered'
  | 'failed'
  | 'canceled'
  | 'read'
  | 'receiving'
  | 'received';

export interface MessageRow {
  sid: string;
  account_sid: string;
  from_number: string;
  to_number: string;
  body: string;
  /** JSON array of URLs */
  media_url: string;
  num_media: number;
  num_segments: number;
  status: MessageStatus;
  direction: 'outbound-api' | 'outbound-reply' | 'inbound';
  channel: 'sms' | 'mms' | 'rcs';
  price: number | null;
  price_unit: string;
  error_code: string | null;
  error_message: string | null;
  send_at: string | null;
  validity_period: number;
  /** When a message still queued fails with validity_period_expired: (send_at or date_created) + validity_period. */
  expires_at: string;
  status_callback: string | null;
  /** Inbound: the platform message it was delivered from, if any; outbound-reply: the inbound it answers. */
  origin_sid: string | null;
  date_created: string;
  date_updated: string;
  date_sent: string | null;
}

export interface WebhookEventRow {
  /** The `webhook-id` header: msg_ + 32 hex. */
  id: string;
  account_sid: string;
  resource_sid: string;
  type: string;
  url: string;
  /** The exact JSON body sent, so every retry signs the same bytes. */
  payload: string;
  /** `dead`: claimed JOB_MAX_CLAIMS times without an attempt ever ending (the instance making it stopped). */
  status: 'pending' | 'delivered' | 'failed' | 'dead';
  attempts: number;
  /** Claims since the last attempt that ended: JOB_MAX_CLAIMS at most. */
  claims: Generated<number>;
  /** JSON {handler, context}: what to do with a 2xx response body (e.g. send the reply to an inbound SMS). */
  on_response: string | null;
  /** When the next attempt is due (a pending event's place in the queue). */
  run_at: string;
  /** The instance attempting it now, until `locked_until`; after a crash the lease runs out and it is due again. */
  locked_by: string | null;
  locked_until: string | null;
  date_created: string;
  date_updated: string;
}

export interface WebhookAttemptRow {
  id: Generated<number>;
  event_id: string;
  attempt: number;
  date_attempted: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
  /** The answer's first bytes (at most 512, as text), for the dashboard. */
  response_excerpt?: string | null;
}

export interface IdempotencyKeyRow {
  account_sid: string;
  operation_id: string;
  idempotency_key: string;
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  locked_until: string;
  date_created: string;
}

/** How many messages of an account are `queued`, kept by triggers on messages (migration 011_rate_limits). */
interface MessageQueueCountRow {
  account_sid: string;
  queued: number;
}

/** One row (id 1): its version moves with every number provisioned or released (migration 025, by triggers). */
interface NumberHoldingsRow {
  id: number;
  version: number;
}

/** How many proxy sessions of an account have not ended, kept by triggers (migration 014_proxy_open_counts). */
interface ProxyOpenCountRow {
  account_sid: string;
  open: number;
}

/** A version of an account's numbers, replaced by triggers on incoming_numbers (migration 026_number_pool_versions). */
interface NumberPoolVersionRow {
  account_sid: string;
  version: number;
}

interface CarrierSendSlotRow {
  from_number: string;
  next_at: string;
}

export type VerificationStatus = 'pending' | 'approved' | 'canceled' | 'expired' | 'max_attempts_reached' | 'failed';
export type VerificationChannel = 'sms' | 'voice' | 'whatsapp';

export interface VerificationRow {
  sid: string;
  account_sid: string;
  to_number: string;
  channel: VerificationChannel;
  status: VerificationStatus;
  locale: string;
  /** The caller's template with its {code} placeholder (never a code), or null for the locale's own. */
  custom_message: string | null;
  code_length: number;
  /** HMAC-SHA256 of sid and code keyed with the server secret (base64). */
  code_hash: string;
  /** AES-256-GCM sealed code, kept only while pending so a re-send repeats it; null once ended. */
  code_sealed: string | null;
  check_attempts: number;
  valid_for: number;
  line_type: string | null;
  carrier_name: string | null;
  date_expires: string;
  date_created: string;
  date_updated: string;
}

interface VerificationSendRow {
  id: Generated<number>;
  account_sid: string;
  verification_sid: string;
  to_number: string;
  channel: VerificationChannel;
  date_sent: string;
}

/** An account's verification sends in one minute (migration 030_verification_send_minutes). */
interface VerificationSendMinuteRow {
  account_sid: string;
  /** The first 16 characters of the sends' ISO 8601 time ("2026-11-26T14:50"). */
  minute: string;
  sends: number;
}

interface AccountSettingsRow {
  account_sid: string;
  verify_callback_url: string | null;
  date_updated: string;
}

/** Sandbox carrier only: the last code its simulated handset at `to_number` received, per account. */
export interface SandboxOtpDeliveryRow {
  account_sid: string;
  to_number: string;
  verification_sid: string;
  channel: VerificationChannel;
  /** `{code, text}` as JSON, sealed with the server secret (bound to `verification_sid`). */
  sealed: string;
  date_sent: string;
}

export type CallStatus =
  'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';

/** One call leg. `machine` and `step` belong to the call engine (server/calls/engine): see there. */
export interface CallRow {
  sid: string;
  account_sid: string;
  parent_call_sid: string | null;
  from_number: string;
  to_number: string;
  direction: 'outbound-api' | 'inbound' | 'outbound-dial';
  status: CallStatus;
  answered_by: 'human' | 'machine_start' | null;
  url: string | null;
  method: 'GET' | 'POST' | null;
  /** Inline instructions as given (POST /v1/calls `twiml`, or a live change). */
  twiml: string | null;
  status_callback: string | null;
  /** Space-separated `status_callback_event` values; null: all. */
  status_callback_events: string | null;
  recording_status_callback: string | null;
  record: number;
  recording_channels: number;
  timeout: number;
  time_limit: number;
  duration: number | null;
  start_time: string | null;
  end_time: string | null;
  price: number | null;
  price_unit: string;
  error_code: string | null;
  error_message: string | null;
  /** The leg on this platform at the other end of this one (an inbound leg and the leg that called it). */
  peer_sid: string | null;
  /** `api` for calls the account made or received; `verification` for calls the Verify service places. */
  purpose: 'api' | 'verification';
  /** The call machine's state (JSON), once answered. */
  machine: string | null;
  /** Bumped at every change of the call's course, so a job scheduled before it knows it is stale. */
  step: number;
  date_created: string;
  date_updated: string;
}

export interface RecordingRow {
  sid: string;
  account_sid: string;
  call_sid: string;
  source: 'outbound_api' | 'record_verb' | 'dial_verb';
  status: 'processing' | 'completed' | 'failed';
  channels: number;
  duration: number | null;
  start_time: string;
  price: number | null;
  price_unit: string;
  error_code: string | null;
  status_callback: string | null;
  /** The timeline segments to render (JSON), until the audio is stored. */
  segments: string | null;
  audio: Buffer | null;
  date_created: string;
  date_updated: string;
}

type ProxySessionStatus = 'open' | 'in-progress' | 'closed' | 'failed';

/** A proxy session (server/proxy). `date_ended` null means open or in progress. */
export interface ProxySessionRow {
  sid: string;
  account_sid: string;
  unique_name: string | null;
  status: ProxySessionStatus;
  mode: 'message-only' | 'voice-only' | 'voice-and-message';
  /** Seconds of inactivity (from creation or the last interaction) after which it closes. */
  ttl: number;
  callback_url: string | null;
  /** When it closes unless something happens first; null once ended. */
  date_expiry: string | null;
  closed_reason: 'ended' | 'ttl_expired' | 'number_released' | null;
  date_created: string;
  date_updated: string;
  date_ended: string | null;
}

export interface ProxyParticipantRow {
  sid: string;
  session_sid: string;
  account_sid: string;
  /** 0 or 1, in the order given at creation. */
  position: number;
  /** The participant's real number (E.164). */
  identifier: string;
  /** The account's number this participant talks to. */
  proxy_identifier: string;
  friendly_name: string | null;
  /** 1 while the session has not ended (the pair is taken), else 0. */
  open: number;
}

export interface ProxyInteractionRow {
  sid: string;
  session_sid: string;
  account_sid: string;
  type: 'message' | 'call';
  from_participant_sid: string;
  to_participant_sid: string;
  body: string | null;
  /** JSON array of URLs. */
  media_url: string;
  status: 'in-progress' | 'completed' | 'failed';
  /** The participant's inbound message or call leg. */
  inbound_sid: string;
  /** The relayed message or the bridged leg; null when nothing could be sent. */
  outbound_sid: string | null;
  duration: number | null;
  date_created: string;
  date_updated: string;
}

export interface DashboardSessionRow {
  /** SHA-256 of the session token (the cookie's value), hex. */
  token_hash: string;
  account_sid: string;
  /** The API key signed in with: revoking it ends the session. */
  key_sid: string;
  flash: string | null;
  date_created: string;
  last_seen: string;
}

export interface SmppPartRow {
  owner_sid: string;
  part_index: number;
  parts: number;
  kind: 'message' | 'otp';
  smsc_message_id: string | null;
  attempts: number;
  resubmitted: number;
  state: string;
  error_code: string | null;
  date_updated: string;
}

export interface SmppInboundPartRow {
  from_number: string;
  to_number: string;
  reference: number;
  part_index: number;
  parts: number;
  body: string;
  date_received: string;
}

/** A message handed to the sandbox network (recorded only with SANDBOX_RECORD_HANDOVERS). */
interface SandboxHandoverRow {
  sid: string;
  date_created: string;
}

export interface Database {
  accounts: AccountRow;
  api_keys: ApiKeyRow;
  jobs: JobRow;
  server_settings: ServerSettingRow;
  addresses: AddressRow;
  incoming_numbers: IncomingNumberRow;
  number_holdings: NumberHoldingsRow;
  messages: MessageRow;
  webhook_events: WebhookEventRow;
  webhook_attempts: WebhookAttemptRow;
  idempotency_keys: IdempotencyKeyRow;
  carrier_send_slots: CarrierSendSlotRow;
  message_queue_counts: MessageQueueCountRow;
  verifications: VerificationRow;
  verification_sends: VerificationSendRow;
  verification_send_minutes: VerificationSendMinuteRow;
  account_settings: AccountSettingsRow;
  sandbox_otp_deliveries: SandboxOtpDeliveryRow;
  calls: CallRow;
  recordings: RecordingRow;
  proxy_sessions: ProxySessionRow;
  proxy_participants: ProxyParticipantRow;
  proxy_interactions: ProxyInteractionRow;
  proxy_open_counts: ProxyOpenCountRow;
  number_pool_versions: NumberPoolVersionRow;
  dashboard_sessions: DashboardSessionRow;
  smpp_parts: SmppPartRow;
  smpp_inbound_parts: SmppInboundPartRow;
  sandbox_handovers: SandboxHandoverRow;
}
