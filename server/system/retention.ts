// Housekeeping: records that are kept only for a while. Webhook events that ended (delivered or given up) go with
// their attempts after WEBHOOK_RETENTION_DAYS; idempotency records after the 24 h in which they can replay.
// One durable job does it at start and then every hour, a few hundred rows per transaction, so that it never
// holds the database for long. Messages, numbers and verifications are the API's records and are kept.
import type { Logger } from 'pino';
import { enqueueJobOnce } from '../jobs/queue.js';
import type { JobContext } from '../jobs/worker.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import { RETENTION_MS as IDEMPOTENCY_MS, deleteKeysBefore, keyCreatedAt } from '../idempotency/store.js';
import type { Store, Tx } from '../store/db.js';
import { webhookIdsBefore } from '../webhooks/sign.js';
import { deleteEndedEvents, endedEventAt } from '../webhooks/queue.js';
import { dateIn } from '../clock.js';

export const RETENTION_JOB = defineJob<Record<string, never>>('maintenance.retention');
const EVERY_MS = 3_600_000;
const CHUNK = 500;
const DAY_MS = 86_400_000;

export class Retention {
  constructor(
    private readonly store: Store,
    private readonly config: { webhookRetentionDays: number },
    private readonly logger: Logger,
  ) {}

  /** Makes sure the job exists (once per database, whatever the number of instances that start). */
  async schedule(): Promise<void> {
    await this.store.transaction((tx) =>
      enqueueJobOnce(tx, this.store.dialect, RETENTION_JOB, {}, { orderingKey: RETENTION_JOB.kind }),
    );
  }

  jobHandlers(): JobHandling[] {
    return [RETENTION_JOB.handle((_job, ctx) => this.run(ctx))];
  }

  private async run(ctx: JobContext): Promise<void> {
    const now = this.store.clock.now();
    const events = await this.purgeWebhookEvents(now - this.config.webhookRetentionDays * DAY_MS);
    const keys = await this.purgeIdempotencyKeys(new Date(now - IDEMPOTENCY_MS).toISOString());
    if (events || keys)
      this.logger.info({ webhookEvents: events, idempotencyKeys: keys }, 'retention: old records removed');
    await ctx.store.transaction((tx) => ctx.continueIn(tx, RETENTION_JOB, {}, dateIn(tx.clock, EVERY_MS)));
  }

  /** Events that ended before `before` (ms), with their attempts. Event ids begin with their creation time. */
  private purgeWebhookEvents(before: number): Promise<number> {
    const below = webhookIdsBefore(before);
    return this.inChunks(
      () => endedEventAt(this.store.db, below, CHUNK),
      (tx, edge) => deleteEndedEvents(tx.db, below, edge),
    );
  }

  /** Idempotency records made before `before` (ISO time). */
  private purgeIdempotencyKeys(before: string): Promise<number> {
    return this.inChunks(
      () => keyCreatedAt(this.store.db, before, CHUNK),
      (tx, edge) => deleteKeysBefore(tx.db, before, edge),
    );
  }

  /**
   * Removes rows a chunk per transaction: `edge` finds the last row of the next chunk (outside the transaction, so
   * the read does not hold the writer), `remove` deletes up to it, or everything left once there is no edge.
   */
  private async inChunks<E>(
    edge: () => Promise<E | undefined>,
    remove: (tx: Tx, edge: E | undefined) => Promise<bigint>,
  ): Promise<number> {
    let removed = 0;
    for (;;) {
      const last = await edge();
      removed += Number(await this.store.transaction((tx) => remove(tx, last)));
      if (last === undefined) return removed;
    }
  }
}
