// The loop behind every durable queue of the server (the jobs table, the webhook events): claim a batch of due
// work under a lease, run each item without waiting for the others, claim again when a batch's worth of room frees
// up, sleep when idle until a signal or the poll interval, and yield to the API while it is busy.
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';

/** What one claim of a durable queue asks for: up to `limit` items due at `now` (the clock's), held by `workerId`
 * for `leaseMs` of real time. */
export interface Claim {
  workerId: string;
  limit: number;
  leaseMs: number;
  now: number;
  /**
   * How many times an item may be claimed without an outcome (JOB_MAX_CLAIMS; DEFAULT_MAX_CLAIMS when absent). An
   * item found due again after as many claims (the instance running it stopped every time) is marked dead by the
   * claim instead, and returned marked so, for its claimer to log it once.
   */
  maxClaims?: number;
}

export const DEFAULT_MAX_CLAIMS = 5;

/** Why poison work was given up, as its row records it. */
export function claimedTooOften(claims: number): string {
  return `claimed ${claims} times without finishing (the process running it stopped)`;
}

export interface ClaimLoopOptions {
  /** What the loop works on, for its log lines (e.g. "job worker"). */
  name: string;
  pollMs: number;
  /** Items claimed at a time. */
  batchSize?: number;
  /** Items running at once; a new batch is claimed as soon as a batch's worth of room frees up. */
  maxRunning?: number;
  /** Emits `event` when work became due now, so the loop need not wait for its next poll. */
  wake?: { emitter: EventEmitter; event: string };
  /**
   * True while the API is busy answering requests: the loop then yields to it, waiting `yieldMs` before its next
   * claim, so the work goes on at a bounded rate and catches up once the API is quieter. Found busy at claim after
   * claim (a sustained burst rather than a passing spike), the wait doubles each time up to `maxYieldMs`.
   */
  busy?: () => boolean;
  yieldMs?: number;
  maxYieldMs?: number;
  /** Told how long each claim took (seconds), for /metrics. */
  onClaim?: (seconds: number) => void;
}

export class ClaimLoop<T> {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private pendingWake: NodeJS.Timeout | null = null;
  private readonly batchSize: number;
  /** Items running at once at most (the window). */
  readonly maxRunning: number;
  /** The items running now: a slow one (a webhook to a receiver that takes its time) holds up none of the others. */
  private readonly inFlight = new Set<Promise<void>>();
  // Coalesce a burst of signals (one per request under load) into one claim of a fuller batch.
  private readonly onSignal = () => {
    this.pendingWake ??= setTimeout(() => {
      this.pendingWake = null;
      this.wake?.();
    }, 2);
  };

  constructor(
    /** Claims up to `limit` due items; they must not be claimable again until they end or their lease runs out. */
    private readonly claim: (limit: number) => Promise<T[]>,
    /** Runs one item to its end (finished, retried later, or given up); it handles its own failures. */
    private readonly runOne: (item: T) => Promise<void>,
    private readonly logger: Logger,
    private readonly options: ClaimLoopOptions,
  ) {
    this.batchSize = options.batchSize ?? 50;
    this.maxRunning = Math.max(this.batchSize, options.maxRunning ?? this.batchSize * 2);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.options.wake?.emitter.on(this.options.wake.event, this.onSignal);
    this.loop = this.run();
  }

  /** Stops claiming, and waits for the items already running to end. */
  async stop(): Promise<void> {
    await this.stopWithin(Infinity);
  }

  /**
   * Stops claiming, and waits for the items already running to end for `withinMs` at most (a graceful shutdown's
   * bound); false when some were still running then (their claimer releases them: see releaseJobs).
   */
  async stopWithin(withinMs: number): Promise<boolean> {
    this.running = false;
    this.options.wake?.emitter.off(this.options.wake.event, this.onSignal);
    if (this.pendingWake) clearTimeout(this.pendingWake);
    this.wake?.();
    await this.loop;
    const ended = Promise.all(this.inFlight).then(() => true);
    if (withinMs === Infinity) return ended;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, withinMs))));
    return Promise.race([ended, late]).finally(() => clearTimeout(timer));
  }

  private async run(): Promise<void> {
    let lastClaim = { at: 0, full: true };
    let yieldMs = 0;
    while (this.running) {
      const room = this.maxRunning - this.inFlight.size;
      if (room < this.batchSize) {
        // Full: a finishing item wakes the loop once a batch's worth of room is free.
        await this.sleep(this.options.pollMs * 10);
        continue;
      }
      // A claim costs about as much as running a few items: after one that found less than a batch, let the next
      // wait a little (signals under load would otherwise wake a claim for every item or two).
      if (!lastClaim.full) await delay(lastClaim.at + MIN_CLAIM_GAP_MS - performance.now());
      if (this.options.busy?.()) {
        const first = this.options.yieldMs ?? 50;
        const most = Math.max(first, this.options.maxYieldMs ?? first);
        yieldMs = yieldMs ? Math.min(yieldMs * 2, most) : first;
        await delay(yieldMs);
      } else yieldMs = 0;
      if (!this.running) break;
      let claimed: T[] = [];
      const claimStarted = performance.now();
      try {
        claimed = await this.claim(this.batchSize);
        this.options.onClaim?.((performance.now() - claimStarted) / 1000);
      } catch (err) {
        if (!this.running) break;
        this.logger.error({ err }, `${this.options.name}: claiming failed`);
      }
      // Pacing in real time (performance.now()), not the domain's clock: a test moving its clock must not stall it.
      lastClaim = { at: performance.now(), full: claimed.length === this.batchSize };
      for (const item of claimed) {
        const done: Promise<void> = this.runOne(item)
          .catch((err) => this.logger.error({ err }, `${this.options.name}: an item failed unhandled`))
          .finally(() => {
            this.inFlight.delete(done);
            if (this.maxRunning - this.inFlight.size === this.batchSize) this.wake?.();
          });
        this.inFlight.add(done);
      }
      if (!lastClaim.full) await this.sleep(this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

const MIN_CLAIM_GAP_MS = 10;

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
