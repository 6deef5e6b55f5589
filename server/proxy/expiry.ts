// A session's expiry: one durable job per session, due at its date_expiry. Interactions slide the expiry without
// touching the job (touchSession only moves the date); when the job runs early for the slid date, it moves itself
// to the new one. The close is an update `where date_ended is null and date_expiry <= now`: a session ended
// meanwhile, or touched while the job ran, is left as it is, and only the winner of that update sends the event.
import type { Store, Tx } from '../store/db.js';
import type { ProxySessionRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import type { JobContext } from '../jobs/worker.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import { enqueueJob } from '../jobs/queue.js';
import { sessionBySid } from './store.js';
import { expireSession, lockOpenCount } from './session-store.js';
import { sessionEnded } from './close.js';

const EXPIRE_JOB = defineJob<{ sid: string }>('proxy.expire');

/** Schedules the new session's expiry, in the transaction that creates it. */
export async function scheduleExpiry(tx: Tx, session: ProxySessionRow): Promise<void> {
  await enqueueJob(tx, EXPIRE_JOB, { sid: session.sid }, { runAt: new Date(session.date_expiry!) });
}

export class SessionExpiry {
  constructor(
    private readonly store: Store,
    private readonly webhooks: WebhookService,
  ) {}

  jobHandlers(): JobHandling[] {
    return [EXPIRE_JOB.handle((job, ctx) => this.expire(job.payload.sid, ctx))];
  }

  private async expire(sid: string, ctx: JobContext): Promise<void> {
    await this.store.transaction(async (tx) => {
      const session = await sessionBySid(tx.db, sid);
      if (!session || session.date_ended !== null) return ctx.finishIn(tx);
      await lockOpenCount(tx, this.store.dialect, session.account_sid);
      const at = new Date(tx.clock.now()).toISOString();
      const expired = await expireSession(tx.db, sid, at);
      if (expired) {
        await sessionEnded(this.webhooks, tx, expired);
        return ctx.finishIn(tx);
      }
      // Not due (an interaction slid it) or already ended: the row read after the update says which.
      const current = await sessionBySid(tx.db, sid);
      if (!current || current.date_ended !== null || !current.date_expiry) return ctx.finishIn(tx);
      await ctx.continueIn(tx, EXPIRE_JOB, { sid }, new Date(current.date_expiry));
    });
  }
}
