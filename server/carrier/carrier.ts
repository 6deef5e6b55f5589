// The port to the telephone network. The sandbox implements it today; real networks (SMPP first) plug in behind it.
// A carrier takes outbound traffic inside the transaction that hands it over, and reports what the network
// does later through a `CarrierReports` sink that the domain provides (so the carrier never calls up into it).
import type { Store, Tx } from '../store/db.js';
import type { JobHandling, JobType } from '../jobs/job.js';
import type { OtpCarrier } from './otp.js';
import type { VoiceCarrier } from './voice.js';

/** How a message travels. `whatsapp` is reserved for verification codes. */
export type CarrierChannel = 'sms' | 'mms' | 'rcs' | 'whatsapp';

export interface OutboundMessage {
  sid: string;
  accountSid: string;
  from: string;
  to: string;
  body: string;
  mediaUrls: string[];
  channel: CarrierChannel;
  numSegments: number;
  /** The end of its validity period (ISO 8601): a network that holds it for later gives up then. */
  validUntil: string;
}

/** A status change the network reports for an outbound message. */
export interface MessageReport {
  sid: string;
  status: 'sent' | 'delivered' | 'undelivered' | 'failed' | 'read';
  /** Set with `sent`: what the network charged. */
  price?: number;
  priceUnit?: string;
  errorCode?: string;
  errorMessage?: string;
}

/** A message arriving from the network at `to`, a number that may be held on this platform. */
export interface InboundMessage {
  from: string;
  to: string;
  body: string;
  mediaUrls: string[];
  channel: CarrierChannel;
  /** The platform message this one is, when it was sent from this platform. */
  originSid?: string;
}

/** A message sent from this platform, as it arrives at its recipient. */
export function inboundOf(message: OutboundMessage): InboundMessage {
  const { from, to, body, mediaUrls, channel } = message;
  return { from, to, body, mediaUrls, channel, originSid: message.sid };
}

/** Where a carrier reports what happens on the network; each call runs inside the carrier's own transaction. */
export interface CarrierReports {
  /** The message as the report leaves it (undefined when there is no such message). */
  messageStatus(tx: Tx, report: MessageReport): Promise<OutboundMessage | undefined>;
  inboundMessage(tx: Tx, message: InboundMessage): Promise<void>;
  /**
   * The network delivered the message to its recipient, which may be a number held on this platform: the
   * `delivered` report and then the message's arrival there as inbound (`messageStatus`, then `inboundMessage` with
   * the message as the report leaves it), in fewer round trips. The message as the report leaves it.
   */
  messageDelivered(tx: Tx, sid: string): Promise<OutboundMessage | undefined>;
}

/**
 * Durably schedules a carrier's follow-up work (a job of `type`) in the transaction of the hand-over, at most once
 * per hand-over: the dispatching job carries on as that work.
 */
export type ScheduleWork = <P>(tx: Tx, type: JobType<P>, payload: NoInfer<P>, runAt: Date) => Promise<void>;

export interface DestinationCapabilities {
  rcs: boolean;
}

/** Whether a carrier's connection to the network is up (a carrier without one is always ready). */
export interface CarrierReadiness {
  ready: boolean;
  /** Why not, for /readyz. */
  reason?: string;
}

export interface Carrier {
  readonly name: string;
  /** True for the built-in simulation: enables the /v1/sandbox routes. */
  readonly isSandbox: boolean;
  /** What the network carries: messages by channel, and `voice` (calls, voice verifications). */
  readonly channels: ReadonlySet<CarrierChannel | 'voice'>;
  /**
   * Opens the carrier's own connection to the network, when it keeps one (SMPP): what arrives on it is reported into
   * `reports` in transactions of `store`. Never throws; `close` ends it.
   */
  start?(store: Store, reports: CarrierReports): void;
  close?(): Promise<void>;
  readiness?(): CarrierReadiness;
  /** What the destination can receive (used to pick RCS or fall back to SMS/MMS). */
  destinationCapabilities(to: string): Promise<DestinationCapabilities>;
  /**
   * Reserves the next moment `from` may hand a message to the network (its throughput limit), no later
   * than `notAfter`; null when no slot is free by then (nothing is reserved).
   */
  reserveSendSlot(tx: Tx, from: string, notAfter: Date): Promise<Date | null>;
  /**
   * Set when `reserveSendSlot` paces each sending number by the platform's send slots (carrier/store.ts,
   * takeSendSlot), one message per this many ms: on PostgreSQL the dispatch then takes the slot in the statement of
   * its update to `sending` (messages/store.ts, takeSlotAndSend) instead of calling `reserveSendSlot`.
   */
  readonly sendSlotIntervalMs?: number;
  /** Hands a message to the network inside the transaction that marks it `sending`. */
  submitMessage(tx: Tx, message: OutboundMessage, schedule: ScheduleWork): Promise<void>;
  /** The carrier's own background work, reporting into `reports`. */
  jobHandlers(reports: CarrierReports): JobHandling[];
  /** Verification codes by sms, voice call or WhatsApp (see otp.ts). */
  readonly otp: OtpCarrier;
  /** Voice calls (see voice.ts). */
  readonly voice: VoiceCarrier;
}
