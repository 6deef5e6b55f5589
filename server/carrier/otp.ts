// The carrier's side of verification codes: a code goes out as a text (sms, whatsapp) or as a call that speaks
// it (voice). Like messages, a delivery is handed over inside the caller's transaction and its outcome comes back
// later through a sink the domain provides (`OtpReports`), so the carrier never calls up into verification.
import type { Db, Tx } from '../store/db.js';
import type { JobHandling } from '../jobs/job.js';

export type OtpChannel = 'sms' | 'voice' | 'whatsapp';

export interface OtpDelivery {
  verificationSid: string;
  accountSid: string;
  /** E.164, and valid in the numbering plan: verification refuses any other number before it sends (fraud.ts). */
  to: string;
  channel: OtpChannel;
  /** What the handset shows (sms, whatsapp) or what the call speaks (voice); it contains the code. */
  text: string;
  /** The code itself, for networks that render it (and the sandbox's handset record); never stored by the domain. */
  code: string;
  /** Voice: the call of the engine's that speaks it (the sandbox shows it with the handset's code). */
  callSid?: string;
}

/** What the network says became of a delivery. Only failures change a verification. */
export interface OtpReport {
  verificationSid: string;
  channel: OtpChannel;
  status: 'delivered' | 'failed';
  errorCode?: string;
  errorMessage?: string;
}

export interface OtpReports {
  otpStatus(tx: Tx, report: OtpReport): Promise<void>;
}

/** Sandbox only: the last code the simulated handset received. */
export interface DeliveredCode {
  to: string;
  code: string;
  text: string;
  verificationSid: string;
  channel: OtpChannel;
  dateSent: string;
  /** Voice: the call that speaks it. */
  callSid: string | null;
}

export interface OtpCarrier {
  /**
   * Hands a code to the network inside the transaction that records the send. A voice code is spoken by a call the
   * verification service places through the call engine; the carrier is told of it here all the same.
   */
  submitOtp(tx: Tx, delivery: OtpDelivery): Promise<void>;
  /** The carrier's background work for code deliveries, reporting into `reports`. */
  otpJobHandlers(reports: OtpReports): JobHandling[];
  /** Present only on the sandbox network: the last code delivered to `to` for the account. */
  lastDeliveredCode?(db: Db, accountSid: string, to: string): Promise<DeliveredCode | undefined>;
  /** Sandbox only: the verification ended, so its code need no longer be readable (see lastDeliveredCode). */
  forgetDeliveredCode?(tx: Tx, ended: { accountSid: string; to: string; verificationSid: string }): Promise<void>;
}
