// The sandbox network's calls: a placed leg becomes a short plan of reports (ringing, then answered, busy,
// no-answer or failed), each a durable job due after its wait in call time divided by SANDBOX_CALL_SPEED, so a
// restart loses nothing. The magic destination numbers are the spec's (Calls tag).
import type { Config } from '../config.js';
import type { Tx } from '../store/db.js';
import { enqueueJob } from '../jobs/queue.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import { dateIn } from '../clock.js';
import type { Answerer, OutboundLeg, VoiceCarrier, VoiceReport, VoiceReports } from './voice.js';
import { PRICE_UNIT, callPrice } from './sandbox-prices.js';
import { callDestination } from './destinations.js';

type SandboxVoiceConfig = Pick<Config, 'sandboxCallRingMs' | 'sandboxCallSpeed'>;

type Status = VoiceReport['status'];
/** A report without its leg. */
type Outcome = { [S in Status]: Omit<Extract<VoiceReport, { status: S }>, 'sid'> }[Status];

interface Step {
  /** Call time (ms) after the previous report. */
  afterMs: number;
  outcome: Outcome;
}

interface StepJob {
  sid: string;
  steps: Step[];
  index: number;
}

const SANDBOX_CALL_JOB = defineJob<StepJob>('sandbox.call');

const NOT_FOUND: Outcome = {
  status: 'failed',
  errorCode: 'invalid_destination',
  errorMessage: 'The destination number does not exist.',
};

/** The callees that answer and act (the rest answer as a listening person). */
const ANSWERERS: Record<string, { answeredBy: 'human' | 'machine_start'; party: Answerer }> = {
  '+15005550008': { answeredBy: 'human', party: { kind: 'presser', digits: '1234#' } },
  '+15005550009': { answeredBy: 'human', party: { kind: 'speaker', phrase: 'check my balance' } },
  '+15005550010': { answeredBy: 'machine_start', party: { kind: 'voicemail' } },
};

export class SandboxVoice implements VoiceCarrier {
  readonly speed: number;

  constructor(private readonly config: SandboxVoiceConfig) {
    this.speed = config.sandboxCallSpeed;
  }

  async placeCall(tx: Tx, leg: OutboundLeg): Promise<void> {
    await this.schedule(tx, { sid: leg.sid, steps: this.plan(leg), index: 0 });
  }

  async ringInbound(tx: Tx, sid: string): Promise<void> {
    const answered: Outcome = { status: 'answered', answeredBy: null, party: { kind: 'listener' } };
    await this.schedule(tx, { sid, steps: [{ afterMs: this.config.sandboxCallRingMs, outcome: answered }], index: 0 });
  }

  price(leg: { to: string; direction: 'inbound' | 'outbound' }, durationS: number) {
    return { price: durationS > 0 ? callPrice(leg.to, leg.direction, durationS) : 0, unit: PRICE_UNIT };
  }

  private plan(leg: OutboundLeg): Step[] {
    if (leg.to === '+15005550001' || !callDestination(leg.to).possible) return [{ afterMs: 0, outcome: NOT_FOUND }];
    const ringing: Step = { afterMs: 0, outcome: { status: 'ringing' } };
    const timeoutMs = leg.timeoutS * 1000;
    const ringMs = this.config.sandboxCallRingMs;
    if (leg.to === '+15005550006')
      return [ringing, { afterMs: Math.min(ringMs, timeoutMs), outcome: { status: 'busy' } }];
    if (leg.to === '+15005550007' || ringMs >= timeoutMs)
      return [ringing, { afterMs: timeoutMs, outcome: { status: 'no-answer' } }];
    const answerer = ANSWERERS[leg.to] ?? { answeredBy: 'human', party: { kind: 'listener' } };
    return [ringing, { afterMs: ringMs, outcome: { status: 'answered', ...answerer } }];
  }

  private async schedule(tx: Tx, job: StepJob): Promise<void> {
    const wait = job.steps[job.index].afterMs / this.speed;
    await enqueueJob(tx, SANDBOX_CALL_JOB, job, { runAt: dateIn(tx.clock, wait) });
  }

  voiceJobHandlers(reports: VoiceReports): JobHandling[] {
    return [
      SANDBOX_CALL_JOB.handle(async (job, ctx) => {
        const { sid, steps, index } = job.payload;
        await ctx.store.transaction(async (tx) => {
          await reports.callStatus(tx, { sid, ...steps[index].outcome });
          const next = steps[index + 1];
          if (!next) return ctx.finishIn(tx);
          const following = { sid, steps, index: index + 1 };
          await ctx.continueIn(tx, SANDBOX_CALL_JOB, following, dateIn(tx.clock, next.afterMs / this.speed));
        });
      }),
    ];
  }
}
