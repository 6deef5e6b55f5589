// Hands a text to the SMSC, part by part, as a durable job: each part is counted before it goes out and its
// message_id stored once accepted, so a run that starts again (a restart, a lease taken over) carries on where the
// last one stopped. The job is held (its lease renewed) while a part waits for the SMSC, and every write checks that
// it still is, so no two runs submit at once. A part the SMSC did not answer is submitted once more at most (SMPP
// has no idempotency, so the handset may get it twice; the part is marked `resubmitted`), then the text fails
// `SMPP_TIMEOUT`.
import type { Logger } from 'pino';
import type { Tx } from '../../store/db.js';
import type { SmppPartRow } from '../../store/schema.js';
import type { JobContext } from '../../jobs/worker.js';
import type { JobType } from '../../jobs/job.js';
import { dateIn } from '../../clock.js';
import { encodeMessage } from './encoding.js';
import type { SmppSession, SubmitPart } from './session.js';
import { countSubmission, holdParts, makeParts, markAccepted, openParts, partsOf } from './store.js';

export interface SubmitJob {
  sid: string;
  from: string;
  to: string;
  /** The text (for a verification code, sealed: see SmppOtp). */
  body: string;
  /** The end of the validity period (ISO 8601). */
  validUntil: string;
  /** The concatenation reference of its parts. */
  reference: number;
  /** Runs that found the link busy or down so far (the backoff). */
  waits: number;
  /** Its parts were made in the hand-over's transaction (see makeParts), for its first run to submit. */
  prepared?: boolean;
}

/** What becomes of a text, told to its owner (the message pipeline, or verification). */
export interface SubmitOutcomes {
  kind: SmppPartRow['kind'];
  /** The text as sent (a verification's is unsealed here). */
  text(job: SubmitJob): string;
  /** Every part accepted. */
  sent(tx: Tx, sid: string): Promise<void>;
  failed(tx: Tx, sid: string, errorCode: string, errorMessage: string): Promise<void>;
  /** Receipts may have come for every part before the last was accepted: settle by them. */
  settle(tx: Tx, parts: SmppPartRow[]): Promise<void>;
}

export interface SubmitSettings {
  sourceTon: number;
  sourceNpi: number;
  destTon: number;
  destNpi: number;
}

const MAX_WAIT_MS = 5000;

/** SMPP addresses of international numbers go without the '+'. */
function smppAddress(e164: string): string {
  return e164.startsWith('+') ? e164.slice(1) : e164;
}

/** A relative SMPP time (`YYMMDDhhmmss000R`) for the seconds left. */
function relativeValidity(seconds: number): string {
  const s = Math.max(1, Math.floor(seconds));
  const two = (n: number) => String(n).padStart(2, '0');
  const days = Math.floor(s / 86_400);
  return `0000${two(days)}${two(Math.floor(s / 3600) % 24)}${two(Math.floor(s / 60) % 60)}${two(s % 60)}000R`;
}

export class Submitter {
  /** Accepted message_ids whose part is being recorded: a receipt for one waits for the record. */
  readonly recording = new Map<string, Promise<unknown>>();

  constructor(
    private readonly session: () => SmppSession | null,
    private readonly settings: SubmitSettings,
    private readonly logger: Logger,
  ) {}

  /** Makes the parts of a text handed over in `tx`, so that the job's first run need not (one transaction less). */
  async prepare(tx: Tx, job: SubmitJob, kind: SmppPartRow['kind'], parts: number): Promise<SubmitJob> {
    await makeParts(tx, { sid: job.sid, kind, parts });
    return { ...job, prepared: true };
  }

  /** `attempt`: the job's claims since it was handed over (1 on its first run; more after a crash or an error). */
  async run(
    type: JobType<SubmitJob>,
    job: SubmitJob,
    attempt: number,
    ctx: JobContext,
    outcomes: SubmitOutcomes,
  ): Promise<void> {
    const { store } = ctx;
    const end = (work: (tx: Tx) => Promise<void>) =>
      store.transaction(async (tx) => {
        await work(tx);
        await ctx.finishIn(tx);
      });
    const validUntil = Date.parse(job.validUntil);
    const encoded = encodeMessage(outcomes.text(job), job.reference);
    const total = encoded.parts.length;
    const owner = { sid: job.sid, kind: outcomes.kind, parts: total };
    // On the first run after the hand-over, its parts are as prepare made them; on any other, as stored.
    const firstRun = job.prepared && attempt === 1;
    const { rows: parts, created } = firstRun
      ? { rows: unsubmitted(job.sid, outcomes.kind, total, store.clock.now()), created: true }
      : await store.transaction((tx) => openParts(tx, owner));
    const session = this.session();
    for (let i = 0; i < total; i++) {
      if (parts[i].smsc_message_id) continue;
      let attempts = parts[i].attempts;
      // The first part of parts just made is counted as submitted once already (see openParts).
      let countedAlready = created && i === 0;
      for (;;) {
        const now = store.clock.now();
        if (now > validUntil) {
          const message = 'The SMSC did not take the message within its validity period.';
          return end((tx) => outcomes.failed(tx, job.sid, 'validity_period_expired', message));
        }
        if (!countedAlready) {
          if (attempts >= 2) {
            const message = `The SMSC answered neither submission of part ${i + 1} of ${total}.`;
            return end((tx) => outcomes.failed(tx, job.sid, 'SMPP_TIMEOUT', message));
          }
          attempts += 1;
          const next = attempts;
          await store.transaction(async (tx) => {
            await ctx.holdIn(tx);
            await countSubmission(tx, job.sid, i, next);
          });
        }
        countedAlready = false;
        const counted = attempts;
        if (attempts > 1) this.logger.warn({ sid: job.sid, part: i + 1 }, 'SMPP: submitting an unanswered part again');
        const part: SubmitPart = {
          sourceAddr: smppAddress(job.from),
          sourceTon: this.settings.sourceTon,
          sourceNpi: this.settings.sourceNpi,
          destinationAddr: smppAddress(job.to),
          destTon: this.settings.destTon,
          destNpi: this.settings.destNpi,
          esmClass: encoded.esmClass,
          dataCoding: encoded.dataCoding,
          shortMessage: encoded.parts[i],
          registeredDelivery: 1,
          validityPeriod: relativeValidity((validUntil - now) / 1000),
        };
        const result = session
          ? await held(ctx, () => session.submit(part))
          : ({ kind: 'retry', commandStatus: null, reason: 'not started' } as const);
        if (result.kind === 'timeout') continue;
        if (result.kind === 'retry') {
          const waitMs = Math.min(MAX_WAIT_MS, 100 * 2 ** job.waits);
          const next = { ...job, waits: job.waits + 1, prepared: false };
          this.logger.debug({ sid: job.sid, reason: result.reason, waitMs }, 'SMPP: submit again later');
          return store.transaction(async (tx) => {
            // Nothing went out: this submission does not count.
            await countSubmission(tx, job.sid, i, counted - 1);
            await ctx.continueIn(tx, type, next, dateIn(tx.clock, waitMs * (0.75 + Math.random() / 4)));
          });
        }
        if (result.kind === 'rejected') {
          const message =
            `The SMSC refused part ${i + 1} of ${total}: ${result.statusName} ` +
            `(command_status 0x${result.commandStatus.toString(16).padStart(8, '0')}).`;
          return end((tx) => outcomes.failed(tx, job.sid, result.statusName, message));
        }
        const accepted = result.messageId;
        parts[i] = { ...parts[i], smsc_message_id: accepted, state: 'accepted' };
        const last = i === total - 1;
        const record = last
          ? end(async (tx) => {
              if (total > 1) await holdParts(tx, store.dialect, job.sid);
              await markAccepted(tx, job.sid, i, accepted);
              await outcomes.sent(tx, job.sid);
              await outcomes.settle(tx, await partsOf(tx, owner));
            })
          : store.transaction(async (tx) => {
              await ctx.holdIn(tx);
              await markAccepted(tx, job.sid, i, accepted);
            });
        this.recording.set(accepted, record);
        try {
          await record;
        } finally {
          this.recording.delete(accepted);
        }
        if (last) return;
        break;
      }
    }
    // Every part was accepted by an earlier run.
    return end(async (tx) => {
      await outcomes.sent(tx, job.sid);
      await outcomes.settle(tx, await partsOf(tx, owner));
    });
  }
}

/**
 * Waits for `work` (a submission, which may queue behind the window and the TPS limit and then wait for its answer)
 * while holding the job: its lease is renewed every third of JOB_LEASE_MS, so no other instance takes it for dead and
 * submits the same part meanwhile. A renewal that finds the lease lost changes nothing; the run's next transaction
 * (which holds the job again) then throws.
 */
async function held<T>(ctx: JobContext, work: () => Promise<T>): Promise<T> {
  const beat = setInterval(
    () => void ctx.store.transaction((tx) => ctx.holdIn(tx)).catch(() => undefined),
    Math.max(100, ctx.leaseMs / 3),
  );
  beat.unref();
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

/** The parts as makeParts stores them (read back without a query). */
function unsubmitted(sid: string, kind: SmppPartRow['kind'], total: number, at: number): SmppPartRow[] {
  const now = new Date(at).toISOString();
  return Array.from({ length: total }, (_, i) => ({
    owner_sid: sid,
    part_index: i,
    parts: total,
    kind,
    smsc_message_id: null,
    attempts: i === 0 ? 1 : 0,
    resubmitted: 0,
    state: 'pending',
    error_code: null,
    date_updated: now,
  }));
}
