// The sandbox carrier: a deterministic network simulation. A submitted message becomes a short plan of status
// reports (sent, delivered, read, or a failure), each a durable job due after its configured delay, so a restart
// loses nothing. Delivery to a number held on this platform also arrives there as an inbound message.
import type { Config } from '../config.js';
import type { Dialect, Tx } from '../store/db.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import type {
  Carrier,
  CarrierReports,
  DestinationCapabilities,
  MessageReport,
  OutboundMessage,
  ScheduleWork,
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

interface StepJob {
  message: OutboundMessage;
  /** The plan, made by the first step (absent before it). */
  steps?: Step[];
  index: number;
}

const SANDBOX_MESSAGE_JOB = defineJob<StepJob>('sandbox.message');

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

  reserveSendSlot(tx: Tx, from: string, notAfter: Date): Promise<Date | null> {
    return takeSendSlot(tx, this.dialect, from, notAfter, 1000 / this.config.sandboxMessagesPerSecond);
  }

  async submitMessage(tx: Tx, message: OutboundMessage, schedule: ScheduleWork): Promise<void> {
    if (this.config.sandboxRecordHandovers)
      await tx.db
        .insertInto('sandbox_handovers')
        .values({ sid: message.sid, date_created: nowIso(tx.clock) })
        .execute();
    // Every plan's first step comes after the sent delay: the plan (the destination parsed, priced) is made by that
    // step, with the network's other work, rather than in the transaction that hands the message over.
    await schedule(tx, SANDBOX_MESSAGE_JOB, { message, index: 0 }, dateIn(tx.clock, this.config.sandboxSentDelayMs));
  }

  /** What the network does with the message: its reports, each after its delay (the first after the sent delay). */
  private plan(message: OutboundMessage): Step[] {
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
        const steps = job.payload.steps ?? this.plan(message);
        const step = steps[index];
        await ctx.store.transaction(async (tx) => {
          await reports.messageStatus(tx, { sid: message.sid, ...step.report });
          // The network hands the message to its destination; when that number is held on this platform, the
          // domain stores it as inbound (and ignores any other number), so the carrier need not look it up too.
          if (step.report.status === 'delivered') {
            await reports.inboundMessage(tx, {
              from: message.from,
              to: message.to,
              body: message.body,
              mediaUrls: message.mediaUrls,
              channel: message.channel,
              originSid: message.sid,
            });
          }
          const next = steps[index + 1];
          const following = { message, steps, index: index + 1 };
          if (next) await ctx.continueIn(tx, SANDBOX_MESSAGE_JOB, following, dateIn(tx.clock, next.afterMs));
          else await ctx.finishIn(tx);
        });
      }),
    ];
  }
}
