// The sandbox carrier: a deterministic network simulation. A submitted message becomes a short plan of status
// reports (sent, delivered, read, or a failure), each a durable job due after its configured delay, so a restart
// loses nothing. Delivery to a number held on this platform also arrives there as an inbound message.
import type { Config } from '../config.js';
import type { Dialect, Tx } from '../store/db.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import {
  inboundOf,
  type Carrier,
  type CarrierReports,
  type DestinationCapabilities,
  type MessageReport,
  type OutboundMessage,
  type ScheduleWork,
} from './carrier.js';
import { isRcsCapable, outcomeFor } from './sandbox-numbers.js';
import { PRICE_UNIT, messagePrice } from './sandbox-prices.js';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { SandboxOtp } from './sandbox-otp.js';
import { SandboxVoice } from './sandbox-voice.js';
import { takeSendSlot } from './store.js';
import { dateIn, nowIso } from '../clock.js';

type SandboxConfig = Pick<
  Config,
  | 'sandboxSentDelayMs'
  | 'sandboxDeliveryDelayMs'
  | 'sandboxSlowDeliveryMs'
  | 'sandboxReadDelayMs'
  | 'sandboxMessagesPerSecond'
  | 'sandboxRecordHandovers'
  | 'sandboxCallRingMs'
  | 'sandboxCallSpeed'
>;

interface Step {
  afterMs: number;
  report: Omit<MessageReport, 'sid'>;
}

/** What a message's plan is made of (see `plan`). */
type Planned = Pick<OutboundMessage, 'to' | 'channel' | 'numSegments'>;

interface StepJob {
  /** The message's sid and, before the first step, what its plan is made of: not its body, media or sender, which
   * the delivered step takes from the row its report returns (the hand-over's job row is smaller). */
  sid?: string;
  planned?: Planned;
  /** The whole message: jobs enqueued by versions before 2026-11-26, run as they were. */
  message?: OutboundMessage;
  /** The plan, made by the first step (absent before it). */
  steps?: Step[];
  index: number;
}

// Grouped: each report is one transaction of a few statements, and nothing outside it.
const SANDBOX_MESSAGE_JOB = defineJob<StepJob>('sandbox.message', { grouped: true });

export class SandboxCarrier implements Carrier {
  readonly name = 'sandbox';
  readonly isSandbox = true;
  readonly channels = new Set(['sms', 'mms', 'rcs', 'whatsapp', 'voice'] as const);
  readonly otp: SandboxOtp;
  readonly voice: SandboxVoice;

  constructor(
    private readonly config: SandboxConfig,
    private readonly dialect: Dialect,
    /** Seals the codes the simulated handsets received. */
    serverSecret: string,
  ) {
    this.otp = new SandboxOtp(config, serverSecret);
    this.voice = new SandboxVoice(config);
  }

  destinationCapabilities(to: string): Promise<DestinationCapabilities> {
    return Promise.resolve({ rcs: isRcsCapable(to) });
  }

  get sendSlotIntervalMs(): number {
    return 1000 / this.config.sandboxMessagesPerSecond;
  }

  reserveSendSlot(tx: Tx, from: string, notAfter: Date): Promise<Date | null> {
    return takeSendSlot(tx, this.dialect, from, notAfter, this.sendSlotIntervalMs);
  }

  async submitMessage(tx: Tx, message: OutboundMessage, schedule: ScheduleWork): Promise<void> {
    if (this.config.sandboxRecordHandovers)
      await tx.db
        .insertInto('sandbox_handovers')
        .values({ sid: message.sid, date_created: nowIso(tx.clock) })
        .execute();
    // Every plan's first step comes after the sent delay: the plan (the destination parsed, priced) is made by that
    // step, with the network's other work, rather than in the transaction that hands the message over.
    const { sid, to, channel, numSegments } = message;
    const job: StepJob = { sid, planned: { to, channel, numSegments }, index: 0 };
    await schedule(tx, SANDBOX_MESSAGE_JOB, job, dateIn(tx.clock, this.config.sandboxSentDelayMs));
  }

  /** What the network does with the message: its reports, each after its delay (the first after the sent delay). */
  private plan(message: Planned): Step[] {
    const c = this.config;
    const parsed = parsePhoneNumberFromString(message.to);
    const outcome = outcomeFor(message.to, parsed);
    if (outcome.kind === 'failed') {
      return [
        {
          afterMs: c.sandboxSentDelayMs,
          report: { status: 'failed', errorCode: outcome.errorCode, errorMessage: outcome.errorMessage },
        },
      ];
    }
    const sent: Step = {
      afterMs: c.sandboxSentDelayMs,
      report: {
        status: 'sent',
        price: messagePrice(message.to, message.channel, message.numSegments, parsed),
        priceUnit: PRICE_UNIT,
      },
    };
    if (outcome.kind === 'undelivered') {
      return [
        sent,
        {
          afterMs: c.sandboxDeliveryDelayMs,
          report: { status: 'undelivered', errorCode: outcome.errorCode, errorMessage: outcome.errorMessage },
        },
      ];
    }
    const delivered: Step = {
      afterMs: outcome.slow ? c.sandboxSlowDeliveryMs : c.sandboxDeliveryDelayMs,
      report: { status: 'delivered' },
    };
    const read: Step[] =
      message.channel === 'rcs' ? [{ afterMs: c.sandboxReadDelayMs, report: { status: 'read' } }] : [];
    return [sent, delivered, ...read];
  }

  jobHandlers(reports: CarrierReports): JobHandling[] {
    return [
      SANDBOX_MESSAGE_JOB.handle(async (job, ctx) => {
        const { message, index } = job.payload;
        const sid = job.payload.sid ?? message!.sid;
        const steps = job.payload.steps ?? this.plan(job.payload.planned ?? message!);
        const step = steps[index];
        await ctx.transaction(async (tx) => {
          // The network hands the message to its destination; when that number is held on this platform, the
          // domain stores it as inbound (and ignores any other number), so the carrier need not look it up too.
          if (step.report.status !== 'delivered') await reports.messageStatus(tx, { sid, ...step.report });
          else if (!message) await reports.messageDelivered(tx, sid);
          else {
            // A job of an earlier version, which carries the message as it was handed over.
            await reports.messageStatus(tx, { sid, ...step.report });
            await reports.inboundMessage(tx, inboundOf(message));
          }
          const next = steps[index + 1];
          const following: StepJob = message ? { message, steps, index: index + 1 } : { sid, steps, index: index + 1 };
          if (next) await ctx.continueIn(tx, SANDBOX_MESSAGE_JOB, following, dateIn(tx.clock, next.afterMs));
          else await ctx.finishIn(tx);
        });
      }),
    ];
  }
}
