// The call engine's job handlers: a leg's timed run (the machine's wake-up, the time limit, a Dial leg's end), the
// instructions fetch (made outside any transaction), and a recording's rendering. A job claimed again after the
// instance running it died (claims > 1) ends its live call `failed` (call_interrupted) instead of running.
import type { Config } from '../../config.js';
import type { Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';
import type { VoiceCarrier } from '../../carrier/voice.js';
import type { WebhookService } from '../../webhooks/service.js';
import type { JobHandling } from '../../jobs/job.js';
import type { Job } from '../../jobs/queue.js';
import type { JobContext } from '../../jobs/worker.js';
import { fetchInstructions } from '../twiml/fetch.js';
import { wavBytes } from '../audio/render.js';
import { RecordingRenderer } from '../audio/renderer.js';
import type { Segment } from '../audio/timeline.js';
import { newWebhookId } from '../../webhooks/sign.js';
import { nowIso } from '../../clock.js';
import { CALL_FETCH_JOB, CALL_RUN_JOB, RECORDING_JOB, type FetchPayload } from './job-types.js';
import { callBySid, finishRecording, isLive, recordingBySid } from './store.js';
import { callTimeMs, wholeSeconds } from './timing.js';
import { recordingEvent } from './events.js';
import type { CallDriver } from './driver.js';
import type { MachineState } from '../machine/types.js';
import type { PublicUrl } from '../../http/public-url.js';
import type { LegSeal } from './leg-seal.js';
import type { Logger } from 'pino';

type HandlerConfig = Pick<Config, 'callFetchTimeoutMs' | 'recordingMaxBytes' | 'webhookAllowPrivate'>;

const GAVE_UP = { errorCode: 'call_interrupted', errorMessage: 'The server could not go on with this call.' };

const INTERRUPTED = {
  errorCode: 'call_interrupted',
  errorMessage: 'The server running this call stopped while it was live.',
};

export class CallJobs {
  /** Renders recordings off the main thread. */
  private readonly renderer = new RecordingRenderer();

  constructor(
    private readonly driver: CallDriver,
    private readonly voice: VoiceCarrier,
    private readonly webhooks: WebhookService,
    private readonly config: HandlerConfig,
    private readonly publicUrl: PublicUrl,
    private readonly seal: LegSeal,
    private readonly logger: Logger,
  ) {}

  /** Stops the renderer's thread: a render in hand fails its job, which runs again. */
  close(): Promise<void> {
    return this.renderer.close();
  }

  handlers(): JobHandling[] {
    return [
      CALL_RUN_JOB.handle((job, ctx) => this.lastResort(job, ctx, () => this.run(job, ctx))),
      CALL_FETCH_JOB.handle((job, ctx) => this.lastResort(job, ctx, () => this.fetch(job, ctx))),
      RECORDING_JOB.handle((job, ctx) => this.render(job, ctx)),
    ];
  }

  /** A leg's job failing at its last attempt ends the leg `failed` rather than leave it live with nothing to run it. */
  private async lastResort(job: Job<{ sid: string; step: number }>, ctx: JobContext, work: () => Promise<void>) {
    try {
      await work();
    } catch (err) {
      if (job.attempts < job.maxAttempts) throw err;
      await ctx.store.transaction(async (tx) => {
        const row = await callBySid(tx.db, job.payload.sid);
        if (row?.step === job.payload.step) await this.driver.finish(tx, row, 'failed', GAVE_UP);
        await ctx.finishIn(tx);
      });
    }
  }

  /**
   * The live leg still where the job was scheduled (at its step, or as `stillThere` says), in `tx`; undefined (and
   * the job done) when it moved on.
   */
  private async current(
    tx: Tx,
    job: Job<{ sid: string; step: number }>,
    stillThere = (row: CallRow) => row.step === job.payload.step,
  ): Promise<CallRow | undefined> {
    const row = await callBySid(tx.db, job.payload.sid);
    if (!row || !isLive(row) || !stillThere(row)) return undefined;
    if (job.claims <= 1) return row;
    await this.driver.finish(tx, row, 'failed', INTERRUPTED);
    return undefined;
  }

  private async run(job: Job<{ sid: string; step: number }>, ctx: JobContext): Promise<void> {
    await ctx.store.transaction(async (tx) => {
      const row = await this.current(tx, job);
      if (row?.status === 'in-progress') {
        const limitReached = callTimeMs(row, tx.clock.now(), this.voice.speed) >= row.time_limit * 1000;
        if (limitReached || !row.machine) await this.driver.hangup(tx, row);
        else await this.driver.feed(tx, row, { type: 'timer' });
      }
      await ctx.finishIn(tx);
    });
  }

  private async fetch(job: Job<FetchPayload>, ctx: JobContext): Promise<void> {
    const { sid, url, method, params, requestId: id } = job.payload;
    const row = await ctx.store.transaction((tx) => this.current(tx, job, awaitsFetch(id)));
    if (!row) return;
    const secret = await this.webhooks.signingSecret(row.account_sid);
    const now = ctx.store.clock.now();
    const result = secret
      ? await fetchInstructions({
          url,
          method,
          params,
          secret,
          webhookId: newWebhookId(now),
          timestamp: now,
          timeoutMs: this.config.callFetchTimeoutMs,
          privateAddresses: this.config.webhookAllowPrivate,
        })
      : {
          ok: false as const,
          errorCode: 'instructions_fetch_failed',
          errorMessage: 'The account cannot sign requests.',
        };
    if (!result.ok && 'detail' in result)
      this.logger.warn({ callSid: sid, url, detail: result.detail }, 'call fetch failed');
    await ctx.store.transaction(async (tx) => {
      const after = await callBySid(tx.db, sid);
      if (after) {
        const event = result.ok
          ? { type: 'fetched' as const, id, instructions: result.instructions }
          : { type: 'fetchFailed' as const, id, errorCode: result.errorCode, errorMessage: result.errorMessage };
        await this.driver.feed(tx, after, event);
      }
      await ctx.finishIn(tx);
    });
  }

  /** Renders the recording's audio (unless it would be larger than RECORDING_MAX_BYTES), then its event. */
  private async render(job: Job<{ sid: string; fromMs: number; toMs: number }>, ctx: JobContext): Promise<void> {
    const { sid, fromMs, toMs } = job.payload;
    const recording = await recordingBySid(ctx.store.db, sid);
    if (!recording || recording.status !== 'processing') return;
    const channels = recording.channels === 2 ? 2 : 1;
    const tooLarge = wavBytes(toMs - fromMs, channels) > this.config.recordingMaxBytes;
    const call = await callBySid(ctx.store.db, recording.call_sid);
    const stored = recording.segments && call ? this.seal.open(call, `segments:${sid}`, recording.segments) : '[]';
    const segments = JSON.parse(stored) as Segment[];
    const audio = tooLarge ? null : await this.renderer.render(segments, fromMs, toMs, channels);
    await ctx.store.transaction(async (tx) => {
      const now = nowIso(tx.clock);
      const done = await finishRecording(
        tx.db,
        sid,
        tooLarge
          ? { status: 'failed', error_code: 'recording_too_large', segments: null, date_updated: now }
          : {
              status: 'completed',
              audio,
              duration: wholeSeconds(toMs - fromMs),
              price: 0,
              segments: null,
              date_updated: now,
            },
      );
      if (done)
        await recordingEvent(this.webhooks, tx, done, await callBySid(tx.db, done.call_sid), this.publicUrl.value);
      await ctx.finishIn(tx);
    });
  }
}

/**
 * A fetch is still wanted while the machine waits for its answer (by its id): other events (input heard) may move the
 * leg's step on meanwhile.
 */
function awaitsFetch(id: string): (row: CallRow) => boolean {
  return (row) => {
    const pending = row.machine ? (JSON.parse(row.machine) as MachineState).pending : null;
    return (pending as { kind?: string; id?: string } | null)?.id === id;
  };
}
