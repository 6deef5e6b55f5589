// Housekeeping: records that are kept only for a while. Webhook events that ended (delivered or given up) go with
// their attempts after WEBHOOK_RETENTION_DAYS; idempotency records after the 24 h in which they can replay.
// One durable job does it at start and then every hour, a few hundred rows per transaction, so that it never
// holds the database for long. Messages, numbers and verifications are the API's records and are kept.
import type { Logger } from 'pino';
import { enqueueJobOnce } from '../jobs/queue.js';
import type { JobContext, JobHandler } from '../jobs/worker.js';
import { RETENTION_MS as IDEMPOTENCY_MS } from '../idempotency/store.js';
import type { Db, Store, Tx } from '../store/db.js';
import { webhookIdsBefore } from '../webhooks/sign.js';
import { dateIn } from '../clock.js';

export const RETENTION_JOB = 'maintenance.retention';
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
    await this.store.transaction((tx) => enqueueJobOnce(tx, this.store.dialect, RETENTION_JOB, {}, { orderingKey: RETENTION_JOB }));
  }

  jobHandlers(): Record<string, JobHandler> {
    return { [RETENTION_JOB]: (_job, ctx) => this.run(ctx) };
  }

  private async run(ctx: JobContext): Promise<void> {
    const now = this.store.clock.now();
    const events = await this.purgeWebhookEvents(now - this.config.webhookRetentionDays * DAY_MS);
    const keys = await this.purgeIdempotencyKeys(new Date(now - IDEMPOTENCY_MS).toISOString());
    if (events || keys) this.logger.info({ webhookEvents: events, idempotencyKeys: keys }, 'retention: old records removed');
    await ctx.store.transaction((tx) => ctx.continueIn(tx, {}, dateIn(tx.clock, EVERY_MS)));
  }

  /** Events that ended before `before` (ms), with their attempts. Event ids begin with their creation time. */
  private purgeWebhookEvents(before: number): Promise<number> {
    const below = webhookIdsBefore(before);
    const ended = (db: Db | Tx['db']) => db.selectFrom('webhook_events').select('id').where('id', '<', below).where('status', '<>', 'pending');
    return this.inChunks(
      () => ended(this.store.db).orderBy('id').limit(1).offset(CHUNK - 1).executeTakeFirst(),
      async (tx, edge) => {
        const upTo = edge ? ended(tx.db).where('id', '<=', edge.id) : ended(tx.db);
        await tx.db.deleteFrom('webhook_attempts').where('event_id', 'in', upTo).execute();
        return (await tx.db.deleteFrom('webhook_events').where('id', 'in', upTo).executeTakeFirst()).numDeletedRows;
      },
    );
  }

  /** Idempotency records made before `before` (ISO time). */
  private purgeIdempotencyKeys(before: string): Promise<number> {
    const old = (db: Db | Tx['db']) => db.selectFrom('idempotency_keys').select('date_created').where('date_created', '<', before);
    return this.inChunks(
      () => old(this.store.db).orderBy('date_created').limit(1).offset(CHUNK - 1).executeTakeFirst(),
      async (tx, edge) => {
        const result = await tx.db
          .deleteFrom('idempotency_keys')
          .where('date_created', '<', before)
          .$if(edge !== undefined, (q) => q.where('date_created', '<=', edge!.date_created))
          .executeTakeFirst();
        return result.numDeletedRows;
      },
    );
  }

  /**
   * Removes rows a chunk per transaction: `edge` finds the last row of the next chunk (outside the transaction, so
   * the read does not hold the writer), `remove` deletes up to it, or everything left once there is no edge.
   */
  private async inChunks<E>(edge: () => Promise<E | undefined>, remove: (tx: Tx, edge: E | undefined) => Promise<bigint>): Promise<number> {
    let removed = 0;
    for (;;) {
      const last = await edge();
      removed += Number(await this.store.transaction((tx) => remove(tx, last)));
      if (last === undefined) return removed;
    }
  }
}
