// Verification codes over SMPP: `sms` goes out as a text through the same submit job as messages (from the first
// of SMPP_NUMBERS, else the SMSC's default sender), its text sealed in the job's payload since it holds the code;
// a part refused, or a receipt reporting a failure, fails the verification. `voice` and `whatsapp` are refused at
// request time (channel_unavailable), so they never reach here.
import { randomInt } from 'node:crypto';
import type { Tx } from '../../store/db.js';
import { defineJob, type JobHandling } from '../../jobs/job.js';
import { enqueueJob } from '../../jobs/queue.js';
import { dateIn } from '../../clock.js';
import { seal, sealKey, unseal } from '../../accounts/seal.js';
import type { OtpCarrier, OtpDelivery, OtpReports } from '../otp.js';
import type { SmppPartRow } from '../../store/schema.js';
import { verdictOf } from './outcomes.js';
import { countSegments } from '../../messages/segments.js';
import type { SubmitJob, SubmitOutcomes, Submitter } from './submit.js';

const SMPP_OTP_JOB = defineJob<SubmitJob>('smpp.otp');

/** How long a code may wait for the SMSC (the default valid_for of a verification). */
const OTP_VALIDITY_MS = 600_000;

export class SmppOtp implements OtpCarrier {
  private readonly sealKey: Buffer;
  private reports: OtpReports | null = null;

  constructor(
    private readonly submitter: Submitter,
    private readonly from: string,
    serverSecret: string,
  ) {
    this.sealKey = sealKey(serverSecret, 'telephony-smpp', 'otp-text-seal');
  }

  async submitOtp(tx: Tx, delivery: OtpDelivery): Promise<void> {
    const job: SubmitJob = {
      sid: delivery.verificationSid,
      from: this.from,
      to: delivery.to,
      body: seal(this.sealKey, delivery.verificationSid, delivery.text),
      validUntil: dateIn(tx.clock, OTP_VALIDITY_MS).toISOString(),
      reference: randomInt(256),
      waits: 0,
    };
    await enqueueJob(tx, SMPP_OTP_JOB, await this.submitter.prepare(tx, job, 'otp', countSegments(delivery.text)));
  }

  otpJobHandlers(reports: OtpReports): JobHandling[] {
    this.reports = reports;
    const outcomes: SubmitOutcomes = {
      kind: 'otp',
      text: (job) => unseal(this.sealKey, job.sid, job.body),
      sent: () => Promise.resolve(),
      failed: (tx, sid, errorCode, errorMessage) =>
        reports.otpStatus(tx, { verificationSid: sid, channel: 'sms', status: 'failed', errorCode, errorMessage }),
      settle: (tx, parts) => this.settle(tx, parts),
    };
    return [
      SMPP_OTP_JOB.handle((job, ctx) => this.submitter.run(SMPP_OTP_JOB, job.payload, job.attempts, ctx, outcomes)),
    ];
  }

  /** Only failures change a verification. */
  async settle(tx: Tx, parts: SmppPartRow[]): Promise<void> {
    const verdict = verdictOf(parts);
    if (!verdict || verdict.status === 'delivered' || !this.reports) return;
    const { errorCode, errorMessage } = verdict;
    const verificationSid = parts[0].owner_sid;
    await this.reports.otpStatus(tx, { verificationSid, channel: 'sms', status: 'failed', errorCode, errorMessage });
  }
}
