// The sandbox network's handling of verification codes. A code to a destination the simulated network reaches is
// "received" by the simulated handset at once: the sandbox keeps the last one per account and number for GET
// /v1/sandbox/verification-codes/{to}, sealed with the server secret and only until its verification ends. A code
// to a failing magic number comes back as a failure report after the configured delay, through a durable job whose
// payload holds no code. A voice code is spoken by a call of the engine's (calls/engine/verification-calls.ts), whose
// own outcome (busy, no-answer ...) fails the verification, so here it is only kept for the handset.
import type { Config } from '../config.js';
import type { Db, Tx } from '../store/db.js';
import { enqueueJob } from '../jobs/queue.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import type { DeliveredCode, OtpCarrier, OtpChannel, OtpDelivery, OtpReport, OtpReports } from './otp.js';
import { magicOutcome } from './sandbox-numbers.js';
import { deliveredCode, forgetDeliveredCode, keepDeliveredCode } from './store.js';
import { seal, sealKey, unseal } from '../accounts/seal.js';
import { dateIn, nowIso } from '../clock.js';

const SANDBOX_OTP_JOB = defineJob<OtpReport>('sandbox.otp');

type SandboxOtpConfig = Pick<Config, 'sandboxSentDelayMs' | 'sandboxDeliveryDelayMs'>;

type Failure = Omit<OtpReport, 'verificationSid' | 'channel' | 'status'> & { afterMs: number };

export class SandboxOtp implements OtpCarrier {
  private readonly sealKey: Buffer;

  constructor(
    private readonly config: SandboxOtpConfig,
    serverSecret: string,
  ) {
    this.sealKey = sealKey(serverSecret, 'telephony-sandbox', 'handset-code-seal');
  }

  async submitOtp(tx: Tx, delivery: OtpDelivery): Promise<void> {
    const failure = this.failureFor(delivery.to, delivery.channel);
    if (failure) {
      const report: OtpReport = {
        verificationSid: delivery.verificationSid,
        channel: delivery.channel,
        status: 'failed',
        errorCode: failure.errorCode,
        errorMessage: failure.errorMessage,
      };
      await enqueueJob(tx, SANDBOX_OTP_JOB, report, { runAt: dateIn(tx.clock, failure.afterMs) });
      return;
    }
    const row = {
      account_sid: delivery.accountSid,
      to_number: delivery.to,
      verification_sid: delivery.verificationSid,
      channel: delivery.channel,
      sealed: seal(
        this.sealKey,
        delivery.verificationSid,
        JSON.stringify({ code: delivery.code, text: delivery.text, callSid: delivery.callSid }),
      ),
      date_sent: nowIso(tx.clock),
    };
    await keepDeliveredCode(tx, row);
  }

  private failureFor(to: string, channel: OtpChannel): Failure | null {
    const c = this.config;
    if (channel === 'voice') return null;
    // Codes go only to numbers valid in the numbering plan (OtpDelivery.to), so only the magic numbers can fail.
    const outcome = magicOutcome(to);
    if (!outcome) return null;
    if (outcome.kind === 'failed')
      return { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage, afterMs: c.sandboxSentDelayMs };
    if (outcome.kind === 'undelivered')
      return {
        errorCode: outcome.errorCode,
        errorMessage: outcome.errorMessage,
        afterMs: c.sandboxSentDelayMs + c.sandboxDeliveryDelayMs,
      };
    return null;
  }

  otpJobHandlers(reports: OtpReports): JobHandling[] {
    return [
      SANDBOX_OTP_JOB.handle(async (job, ctx) => {
        await ctx.store.transaction(async (tx) => {
          await reports.otpStatus(tx, job.payload);
          await ctx.finishIn(tx);
        });
      }),
    ];
  }

  async lastDeliveredCode(db: Db, accountSid: string, to: string): Promise<DeliveredCode | undefined> {
    const row = await deliveredCode(db, accountSid, to);
    if (!row) return undefined;
    let handset: { code: string; text: string; callSid?: string };
    try {
      handset = JSON.parse(unseal(this.sealKey, row.verification_sid, row.sealed)) as typeof handset;
    } catch {
      // Sealed under another server secret (see SECRET_KEY_PREVIOUS): that code cannot be shown any more.
      return undefined;
    }
    return {
      to: row.to_number,
      code: handset.code,
      text: handset.text,
      verificationSid: row.verification_sid,
      channel: row.channel,
      dateSent: row.date_sent,
      callSid: handset.callSid ?? null,
    };
  }

  async forgetDeliveredCode(tx: Tx, ended: { accountSid: string; to: string; verificationSid: string }) {
    await forgetDeliveredCode(tx, ended);
  }
}
