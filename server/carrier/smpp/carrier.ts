// The SMPP carrier: SMS through a real SMSC, over one transceiver session (session.ts). A message handed over
// becomes a durable submit job (submit.ts); the SMSC's receipts and inbound messages arrive on the session
// (deliveries.ts). It carries SMS only: MMS, RCS, media, voice and WhatsApp are refused at request time.
// No price is known to the carrier (the SMSC's tariff is the operator's), so sent messages have a null price.
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Store, Tx } from '../../store/db.js';
import type { SmppPartRow } from '../../store/schema.js';
import { defineJob, type JobHandling } from '../../jobs/job.js';
import { errors } from '../../errors.js';
import type {
  Carrier,
  CarrierReadiness,
  CarrierReports,
  DestinationCapabilities,
  OutboundMessage,
  ScheduleWork,
} from '../carrier.js';
import type { VoiceCarrier } from '../voice.js';
import { SmppDeliveries } from './deliveries.js';
import { OfferedNumbers } from './offered-numbers.js';
import { SmppOtp } from './otp.js';
import { verdictOf } from './outcomes.js';
import { SmppSession } from './session.js';
import { Submitter, type SubmitJob, type SubmitOutcomes } from './submit.js';

export type SmppConfig = Pick<
  Config,
  | 'smppUrl'
  | 'smppSystemType'
  | 'smppWindow'
  | 'smppTps'
  | 'smppSourceTon'
  | 'smppSourceNpi'
  | 'smppDestTon'
  | 'smppDestNpi'
  | 'smppNumbers'
  | 'smppResponseTimeoutMs'
  | 'smppConcatTimeoutMs'
>;

const SMPP_SUBMIT_JOB = defineJob<SubmitJob>('smpp.submit');

const ENQUIRE_LINK_MS = 30_000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 30_000;

/** The SMPP carrier has no voice: calls and voice verifications are refused before they reach it. */
const NO_VOICE: VoiceCarrier = {
  placeCall: () => Promise.reject(errors.channelUnavailable('A call', 'smpp')),
  ringInbound: () => Promise.reject(errors.channelUnavailable('A call', 'smpp')),
  speed: 1,
  price: () => ({ price: 0, unit: 'USD' }),
  voiceJobHandlers: () => [],
};

export class SmppCarrier implements Carrier {
  readonly name = 'smpp';
  readonly isSandbox = false;
  readonly channels = new Set(['sms'] as const);
  readonly otp: SmppOtp;
  readonly voice = NO_VOICE;
  /** The numbers the platform holds on this SMSC (SMPP_NUMBERS), the only ones offered. */
  readonly offered: OfferedNumbers;
  private readonly submitter: Submitter;
  private session: SmppSession | null = null;
  private messageReports: CarrierReports | null = null;

  constructor(
    private readonly config: SmppConfig,
    serverSecret: string,
    private readonly logger: Logger,
  ) {
    const settings = {
      sourceTon: config.smppSourceTon,
      sourceNpi: config.smppSourceNpi,
      destTon: config.smppDestTon,
      destNpi: config.smppDestNpi,
    };
    this.submitter = new Submitter(() => this.session, settings, logger);
    this.offered = new OfferedNumbers(config.smppNumbers);
    const first = this.offered.all().next();
    this.otp = new SmppOtp(this.submitter, first.done ? '' : first.value, serverSecret);
  }

  destinationCapabilities(): Promise<DestinationCapabilities> {
    return Promise.resolve({ rcs: false });
  }

  /** No per-number pacing here: the session's SMPP_TPS and SMPP_WINDOW pace the whole link. */
  reserveSendSlot(tx: Tx, _from: string, notAfter: Date): Promise<Date | null> {
    const now = tx.clock.now();
    return Promise.resolve(now <= notAfter.getTime() ? new Date(now) : null);
  }

  async submitMessage(tx: Tx, message: OutboundMessage, schedule: ScheduleWork): Promise<void> {
    const job: SubmitJob = {
      sid: message.sid,
      from: message.from,
      to: message.to,
      body: message.body,
      validUntil: message.validUntil,
      reference: randomInt(256),
      waits: 0,
    };
    const prepared = await this.submitter.prepare(tx, job, 'message', message.numSegments);
    await schedule(tx, SMPP_SUBMIT_JOB, prepared, new Date(tx.clock.now()));
  }

  jobHandlers(reports: CarrierReports): JobHandling[] {
    this.messageReports = reports;
    const outcomes: SubmitOutcomes = {
      kind: 'message',
      text: (job) => job.body,
      sent: async (tx, sid) => {
        await reports.messageStatus(tx, { sid, status: 'sent' });
      },
      failed: async (tx, sid, errorCode, errorMessage) => {
        await reports.messageStatus(tx, { sid, status: 'failed', errorCode, errorMessage });
      },
      settle: (tx, parts) => this.settleMessage(tx, parts),
    };
    return [
      SMPP_SUBMIT_JOB.handle((job, ctx) =>
        this.submitter.run(SMPP_SUBMIT_JOB, job.payload, job.attempts, ctx, outcomes),
      ),
      SmppDeliveries.timeoutHandler(reports),
    ];
  }

  /** A message's status by its parts' receipts (a report out of place, e.g. while still sending, changes nothing). */
  private async settleMessage(tx: Tx, parts: SmppPartRow[]): Promise<void> {
    const verdict = verdictOf(parts);
    if (verdict && this.messageReports)
      await this.messageReports.messageStatus(tx, { sid: parts[0].owner_sid, ...verdict });
  }

  start(store: Store, reports: CarrierReports): void {
    if (this.session) return;
    const settle = (kind: SmppPartRow['kind']) => (tx: Tx, parts: SmppPartRow[]) =>
      kind === 'otp' ? this.otp.settle(tx, parts) : this.settleMessage(tx, parts);
    const { config, logger } = this;
    const deliveries = new SmppDeliveries(
      store,
      reports,
      settle,
      this.submitter.recording,
      config.smppConcatTimeoutMs,
      logger,
    );
    this.session = new SmppSession(
      {
        url: config.smppUrl!,
        systemType: config.smppSystemType ?? undefined,
        window: config.smppWindow,
        tps: config.smppTps,
        responseTimeoutMs: config.smppResponseTimeoutMs,
        enquireLinkMs: ENQUIRE_LINK_MS,
        reconnectMinMs: RECONNECT_MIN_MS,
        reconnectMaxMs: RECONNECT_MAX_MS,
        logger,
      },
      (pdu) => deliveries.deliver(pdu),
    );
    this.session.start();
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = null;
    await session?.close();
  }

  readiness(): CarrierReadiness {
    const state = this.session?.readiness() ?? { ready: false, reason: 'not started' };
    return state.ready ? { ready: true } : { ready: false, reason: `The SMPP session is not bound: ${state.reason}.` };
  }
}
