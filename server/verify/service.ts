// Verifications: send a code (or re-send the pending one), check it, fetch or cancel, and what ends one by itself
// (expiry, a delivery failure). Rules and limits live here; SQL in store.ts, the network behind `carrier.otp`.
import type { Config } from '../config.js';
import type { Carrier } from '../carrier/carrier.js';
import type { OtpDelivery, OtpReport, OtpReports } from '../carrier/otp.js';
import type { LookupService } from '../lookups/service.js';
import type { Store, Tx } from '../store/db.js';
import type { VerificationRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import type { components } from '../../generated/openapi.js';
import { enqueueJob } from '../jobs/queue.js';
import type { JobContext } from '../jobs/worker.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import { errors } from '../errors.js';
import { newSid } from '../ids.js';
import { nowIso } from '../clock.js';
import { CodeKeeper, newCode } from './codes.js';
import { VerificationEvents } from './events.js';
import { blockedReason } from './fraud.js';
import { CODE_PLACEHOLDER, TEMPLATES, renderCode, type Locale } from './templates.js';
import * as verifications from './store.js';
import type { ResponseRecorder } from '../idempotency/recorder.js';
import { verificationView, type VerificationRecord } from './view.js';
import {
  verificationRecording,
  type VerificationCallFailure,
  type VerificationCallReports,
  type VerificationCalls,
} from '../calls/engine/verification-calls.js';

export type SendVerificationInput = components['schemas']['SendVerificationRequest'];
export type CheckVerificationInput = components['schemas']['CheckVerificationRequest'];
export type SandboxVerificationCode = components['schemas']['SandboxVerificationCode'];

const EXPIRE_JOB = defineJob<{ sid: string }>('verification.expire');

const LIMITS = {
  /** Sends (first and re-sends) to one number per account within `sendWindowMs`. */
  sendsPerNumber: 5,
  sendWindowMs: 10 * 60_000,
  /** Wrong codes that end a verification (the last one included). */
  wrongCodes: 5,
  codeLength: { min: 4, max: 8, default: 6 },
  validFor: { min: 60, max: 86_400, default: 600 },
} as const;

const HOUR_MS = 3_600_000;
/** How long an account's per-minute send counts are kept (migration 030; the cap reads the last hour's). */
const SEND_MINUTES_KEPT_MS = 24 * HOUR_MS;

type VerifyConfig = Pick<Config, 'verifyMaxSendsPerHour'>;

export class VerificationService implements OtpReports, VerificationCallReports {
  private readonly codes: CodeKeeper;
  private readonly events: VerificationEvents;

  constructor(
    private readonly store: Store,
    private readonly carrier: Carrier,
    private readonly lookups: LookupService,
    webhooks: WebhookService,
    private readonly config: VerifyConfig,
    secretKey: string,
    /** Speaks voice codes through the call engine. */
    private readonly voiceCalls: Pick<VerificationCalls, 'place'>,
  ) {
    this.codes = new CodeKeeper(secretKey);
    this.events = new VerificationEvents(webhooks);
  }

  /** Sends a new code, or re-sends the pending verification's code on the channel asked. */
  async send(
    accountSid: string,
    input: SendVerificationInput,
    { recorder }: { recorder?: ResponseRecorder } = {},
  ): Promise<VerificationRecord> {
    if (!this.carrier.channels.has(input.channel))
      throw errors.channelUnavailable(`A verification by ${input.channel}`, this.carrier.name);
    const locale = input.locale ?? 'en';
    if (!(locale in TEMPLATES))
      throw errors.invalidField('locale', `must be one of ${Object.keys(TEMPLATES).join(', ')}`);
    const codeLength = input.code_length ?? LIMITS.codeLength.default;
    if (!Number.isInteger(codeLength) || codeLength < LIMITS.codeLength.min || codeLength > LIMITS.codeLength.max) {
      throw errors.invalidField(
        'code_length',
        `must be an integer from ${LIMITS.codeLength.min} to ${LIMITS.codeLength.max}`,
      );
    }
    const validFor = input.valid_for ?? LIMITS.validFor.default;
    if (!Number.isInteger(validFor) || validFor < LIMITS.validFor.min || validFor > LIMITS.validFor.max) {
      throw errors.invalidField(
        'valid_for',
        `must be an integer from ${LIMITS.validFor.min} to ${LIMITS.validFor.max} seconds`,
      );
    }
    if (input.custom_message !== undefined && !input.custom_message.includes(CODE_PLACEHOLDER)) {
      throw errors.invalidField('custom_message', `must contain ${CODE_PLACEHOLDER} where the code goes`);
    }

    const lookup = await this.lookups.screen(input.to, 'to');
    const blocked = blockedReason(lookup);
    if (blocked) throw errors.destinationBlocked(blocked);

    return this.store.transaction(async (tx) => {
      await verifications.lockAccountSends(tx, this.store.dialect, accountSid);
      const now = tx.clock.now();
      let pending = await verifications.pendingToNumber(tx.db, accountSid, input.to);
      if (pending && isPastExpiry(pending, now)) {
        await this.expire(tx, pending);
        pending = undefined;
      }
      await this.enforceSendLimits(tx, accountSid, input.to, now);

      const sentAt = new Date(now).toISOString();
      const kept = pending && this.codes.tryUnseal(pending.sid, pending.code_sealed);
      if (pending && !kept) {
        // Sealed under another SECRET_KEY: the code cannot be repeated, so that verification ends and a new one starts.
        const canceled = await verifications.endPending(tx.db, pending.sid, {
          status: 'canceled',
          date_updated: sentAt,
        });
        if (canceled) await this.ended(tx, canceled);
        pending = undefined;
      }
      let row: VerificationRow | undefined;
      let created = false;
      let code = '';
      if (pending && kept) {
        code = kept;
        row = await verifications.resendPending(tx.db, pending.sid, input.channel, sentAt);
      }
      // No pending verification, or it ended since it was read (checked or canceled meanwhile): a new one starts.
      if (!row) {
        const sid = newSid('verification', now);
        code = newCode(codeLength);
        row = {
          sid,
          account_sid: accountSid,
          to_number: input.to,
          channel: input.channel,
          status: 'pending',
          locale,
          custom_message: input.custom_message ?? null,
          code_length: codeLength,
          code_hash: this.codes.hash(sid, code),
          code_sealed: this.codes.seal(sid, code),
          check_attempts: 0,
          valid_for: validFor,
          line_type: lookup.line_type === 'unknown' ? null : lookup.line_type,
          carrier_name: lookup.carrier_name,
          date_expires: new Date(now + validFor * 1000).toISOString(),
          date_created: sentAt,
          date_updated: sentAt,
        };
        await verifications.insertVerification(tx.db, row);
        created = true;
        await enqueueJob(tx, EXPIRE_JOB, { sid }, { runAt: new Date(row.date_expires) });
      }
      const send = {
        account_sid: accountSid,
        verification_sid: row.sid,
        to_number: row.to_number,
        channel: input.channel,
        date_sent: sentAt,
      };
      // Minutes older than the cap's hour are never read; a day's margin covers instances whose clocks disagree (one an
      // hour ahead must not forget minutes another still counts).
      await verifications.recordSend(tx.db, send, new Date(now - SEND_MINUTES_KEPT_MS).toISOString());
      const delivery: OtpDelivery = {
        verificationSid: row.sid,
        accountSid,
        to: row.to_number,
        channel: input.channel,
        text: renderCode(code, input.channel, row.locale as Locale, row.custom_message),
        code,
      };
      // A voice code is a call of the engine's; the carrier hears of it too (the sandbox handset keeps it).
      if (input.channel === 'voice') delivery.callSid = await this.voiceCalls.place(tx, delivery);
      await this.carrier.otp.submitOtp(tx, delivery);
      // A new verification's one send is the one just recorded: no need to read it back.
      const view = created
        ? verificationView(row, [{ time: sentAt, channel: input.channel }])
        : await this.view(tx, row);
      await recorder?.record(tx, view);
      return view;
    });
  }

  private async enforceSendLimits(tx: Tx, accountSid: string, to: string, now: number): Promise<void> {
    const toNumber = await verifications.sendsSince(
      tx.db,
      accountSid,
      new Date(now - LIMITS.sendWindowMs).toISOString(),
      to,
    );
    if (toNumber.count >= LIMITS.sendsPerNumber) {
      throw errors.maxSendAttemptsReached(
        to,
        LIMITS.sendsPerNumber,
        LIMITS.sendWindowMs / 60_000,
        secondsUntil(toNumber.oldest, LIMITS.sendWindowMs, now),
      );
    }
    const cap = this.config.verifyMaxSendsPerHour;
    const hourAgo = new Date(now - HOUR_MS).toISOString();
    // The bound from the account's counts per minute first: only an account near its cap pays the exact count.
    if ((await verifications.sendsBoundSince(tx.db, accountSid, hourAgo)) < cap) return;
    const account = await verifications.sendsSince(tx.db, accountSid, hourAgo);
    if (account.count >= cap) {
      throw errors.verificationSendCapReached(cap, secondsUntil(account.oldest, HOUR_MS, now));
    }
  }

  async check(accountSid: string, input: CheckVerificationInput): Promise<VerificationRecord> {
    if ((input.to === undefined) === (input.verification_sid === undefined)) {
      const message = 'give exactly one of to or verification_sid';
      throw errors.invalidRequest(`Give exactly one of to or verification_sid with the code.`, [
        { field: 'to', message },
        { field: 'verification_sid', message },
      ]);
    }
    const bySid = input.verification_sid !== undefined;
    return this.store.transaction(async (tx) => {
      let row = bySid
        ? await verifications.findVerification(tx.db, accountSid, input.verification_sid!)
        : await verifications.latestToNumber(tx.db, accountSid, input.to!);
      if (!row)
        throw bySid ? errors.noSuchVerification(input.verification_sid!) : errors.noVerificationSentTo(input.to!);
      if (row.status === 'pending' && isPastExpiry(row, tx.clock.now())) row = (await this.expire(tx, row)) ?? row;
      if (row.status !== 'pending') throw notPending(row, bySid);

      const now = nowIso(tx.clock);
      if (this.codes.matches(row.sid, input.code, row.code_hash)) {
        const approved = await verifications.endPending(tx.db, row.sid, { status: 'approved', date_updated: now });
        if (!approved) throw notPending((await verifications.verificationBySid(tx.db, row.sid))!, bySid);
        await this.ended(tx, approved);
        return this.view(tx, approved);
      }
      let counted = await verifications.countWrongCode(tx.db, row.sid, now);
      if (!counted) throw notPending((await verifications.verificationBySid(tx.db, row.sid))!, bySid);
      if (Number(counted.check_attempts) >= LIMITS.wrongCodes) {
        const ended = await verifications.endPending(tx.db, row.sid, {
          status: 'max_attempts_reached',
          date_updated: now,
        });
        if (ended) {
          await this.ended(tx, ended);
          counted = ended;
        }
      }
      return this.view(tx, counted);
    });
  }

  async get(accountSid: string, sid: string): Promise<VerificationRecord> {
    const row = await verifications.findVerification(this.store.db, accountSid, sid);
    if (!row) throw errors.noSuchVerification(sid);
    if (row.status === 'pending' && isPastExpiry(row, this.store.clock.now())) {
      // Lazy expiry: GET shows `expired` as soon as valid_for has passed, even before the job has run.
      return this.store.transaction(async (tx) =>
        this.view(tx, (await this.expire(tx, row)) ?? (await verifications.verificationBySid(tx.db, sid))!),
      );
    }
    return this.view(this.store, row);
  }

  async cancel(accountSid: string, sid: string): Promise<VerificationRecord> {
    return this.store.transaction(async (tx) => {
      const row = await verifications.findVerification(tx.db, accountSid, sid);
      if (!row) throw errors.noSuchVerification(sid);
      if (row.status === 'pending' && isPastExpiry(row, tx.clock.now())) await this.expire(tx, row);
      const change = { status: 'canceled', date_updated: nowIso(tx.clock) } as const;
      const canceled = await verifications.endPending(tx.db, sid, change);
      if (!canceled) throw notPending((await verifications.verificationBySid(tx.db, sid))!, true, false);
      await this.ended(tx, canceled);
      return this.view(tx, canceled);
    });
  }

  /** Sandbox only: the last code the simulated handset at `to` received from this account. */
  async sandboxCode(accountSid: string, to: string): Promise<SandboxVerificationCode> {
    const otp = this.carrier.otp;
    if (!this.carrier.isSandbox || !otp.lastDeliveredCode) throw errors.sandboxInactive();
    const delivered = await otp.lastDeliveredCode(this.store.db, accountSid, to);
    if (!delivered) throw errors.noSandboxCodeFor(to);
    return {
      to: delivered.to,
      code: delivered.code,
      text: delivered.text,
      verification_sid: delivered.verificationSid,
      channel: delivered.channel,
      date_sent: delivered.dateSent,
      ...(delivered.callSid ? { call_sid: delivered.callSid } : {}),
    };
  }

  /** Sandbox only: the WAV file of what a verification call of the account said (see verification-calls.ts). */
  async sandboxRecording(accountSid: string, callSid: string): Promise<Buffer> {
    if (!this.carrier.isSandbox) throw errors.sandboxInactive();
    const recording = await verificationRecording(this.store.db, accountSid, callSid);
    if (!recording) throw errors.noSuchCall(callSid);
    if (recording.status !== 'completed' || !recording.audio)
      throw errors.recordingNotReady(recording.sid, recording.status);
    return Buffer.from(recording.audio);
  }

  /** The network could not deliver a code: a verification still pending ends `failed`. */
  async otpStatus(tx: Tx, report: OtpReport): Promise<void> {
    if (report.status !== 'failed') return;
    const change = { status: 'failed', date_updated: nowIso(tx.clock) } as const;
    const failed = await verifications.endPending(tx.db, report.verificationSid, change);
    if (failed) await this.ended(tx, failed);
  }

  /** The call speaking a voice code did not get through: the verification it spoke for fails, if still pending. */
  async verificationCallFailed(tx: Tx, failure: VerificationCallFailure): Promise<void> {
    const sid = await verifications.voiceSendAt(tx.db, failure.accountSid, failure.to, failure.placedAt);
    if (!sid) return;
    const { errorCode, errorMessage } = failure;
    await this.otpStatus(tx, { verificationSid: sid, channel: 'voice', status: 'failed', errorCode, errorMessage });
  }

  jobHandlers(): JobHandling[] {
    return [EXPIRE_JOB.handle((job, ctx) => this.expireJob(job.payload.sid, ctx))];
  }

  private async expireJob(sid: string, ctx: JobContext): Promise<void> {
    await ctx.store.transaction(async (tx) => {
      const row = await verifications.verificationBySid(tx.db, sid);
      if (row?.status === 'pending') {
        if (isPastExpiry(row, tx.clock.now())) await this.expire(tx, row);
        else await enqueueJob(tx, EXPIRE_JOB, { sid }, { runAt: new Date(row.date_expires) });
      }
      await ctx.finishIn(tx);
    });
  }

  /** Ends a pending verification whose time has passed; returns it expired, or undefined if it had already ended. */
  private async expire(tx: Tx, row: VerificationRow): Promise<VerificationRow | undefined> {
    const expired = await verifications.endPending(tx.db, row.sid, {
      status: 'expired',
      date_updated: row.date_expires,
    });
    if (expired) await this.ended(tx, expired);
    return expired;
  }

  /** A verification ended: its webhook goes out, and the sandbox handset forgets its code. */
  private async ended(tx: Tx, row: VerificationRow): Promise<void> {
    await this.events.statusChanged(tx, row);
    const ended = { accountSid: row.account_sid, to: row.to_number, verificationSid: row.sid };
    await this.carrier.otp.forgetDeliveredCode?.(tx, ended);
  }

  private async view(conn: Tx | Store, row: VerificationRow): Promise<VerificationRecord> {
    return verificationView(row, await verifications.sendsOf(conn.db, row.sid));
  }
}

function isPastExpiry(row: VerificationRow, now: number): boolean {
  return Date.parse(row.date_expires) <= now;
}

function secondsUntil(oldest: string | null, windowMs: number, now: number): number {
  return oldest ? Math.max(1, Math.ceil((Date.parse(oldest) + windowMs - now) / 1000)) : 1;
}

/** The answer to checking (or, with `check` false, canceling) a verification that has ended. */
function notPending(row: VerificationRow, bySid: boolean, check = true) {
  if (check && row.status === 'max_attempts_reached') {
    return errors.maxCheckAttemptsReached(row.sid, LIMITS.wrongCodes);
  }
  if (!bySid) return errors.noPendingVerificationTo(row.to_number, row.status);
  return errors.verificationNotPending(row.sid, row.status);
}
