// The one webhook delivery engine of the product. A webhook is recorded (event row + durable job) in the
// transaction of the change that causes it, delivered at least once, signed per Standard Webhooks with the
// account's secret, retried with exponential backoff and jitter, and kept in order per resource (job ordering
// key). Every attempt is recorded.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store, Tx } from '../store/db.js';
import { enqueueJob } from '../jobs/queue.js';
import { RetryLater, type JobContext, type JobHandler } from '../jobs/worker.js';
import { nowIso } from '../clock.js';
import { newWebhookId } from './sign.js';
import { WebhookSender } from './sender.js';
import { prepared } from '../store/prepared.js';
import type { WebhookAttemptRow, WebhookEventRow } from '../store/schema.js';

const insertEvent = prepared((db, row: WebhookEventRow) => db.insertInto('webhook_events').values(row));
const eventToDeliver = prepared((db, id: string) =>
  db
    .selectFrom('webhook_events')
    .innerJoin('accounts', 'accounts.sid', 'webhook_events.account_sid')
    .select(['webhook_events.url', 'webhook_events.payload', 'webhook_events.status', 'webhook_events.attempts', 'webhook_events.on_response', 'webhook_events.type'])
    .select('accounts.webhook_secret')
    .where('webhook_events.id', '=', id),
);
const insertAttempt = prepared((db, row: Omit<WebhookAttemptRow, 'id'>) => db.insertInto('webhook_attempts').values(row));
const recordAttempt = prepared((db, id: string, attempts: number, status: WebhookEventRow['status'], now: string) =>
  db.updateTable('webhook_events').set({ attempts, status, date_updated: now }).where('id', '=', id),
);

export const WEBHOOK_JOB = 'webhook.deliver';

export interface WebhookRequest {
  accountSid: string;
  url: string;
  /** e.g. `message.delivered`, `message.received`, `call.completed`. */
  type: string;
  /** Events of one resource are delivered one at a time, in the order they were recorded. */
  resourceSid: string;
  /** The record as the API returns it, at the moment of the event. */
  data: unknown;
  /** A registered response handler to run on the 2xx response (e.g. an inbound SMS reply). */
  onResponse?: { handler: string; context: unknown };
}

export interface WebhookResponse {
  status: number;
  body: string;
  contentType: string;
}

/** Runs inside the transaction that records the successful attempt. */
export type ResponseHandler = (tx: Tx, response: WebhookResponse, context: any) => Promise<void>;

type WebhookConfig = Pick<Config, 'webhookTimeoutMs' | 'webhookRetryBaseMs' | 'webhookRetryMaxMs' | 'webhookMaxAttempts' | 'webhookAllowPrivate'>;

export class WebhookService {
  private readonly responseHandlers = new Map<string, ResponseHandler>();
  private readonly sender = new WebhookSender();

  constructor(
    private readonly store: Store,
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
  ) {}

  /** Registers what to do with the body of a 2xx response for webhooks enqueued with `onResponse.handler` = name. */
  handleResponses(name: string, handler: ResponseHandler): void {
    this.responseHandlers.set(name, handler);
  }

  /** Records a webhook to send; call inside the transaction of the change it reports. Returns its webhook-id. */
  async enqueue(tx: Tx, request: WebhookRequest): Promise<string> {
    const id = newWebhookId();
    const now = nowIso();
    await insertEvent.run(tx.db, {
      id,
      account_sid: request.accountSid,
      resource_sid: request.resourceSid,
      type: request.type,
      url: request.url,
      payload: JSON.stringify({ type: request.type, timestamp: now, data: request.data }),
      status: 'pending',
      attempts: 0,
      on_response: request.onResponse ? JSON.stringify(request.onResponse) : null,
      date_created: now,
      date_updated: now,
    });
    // The job's own attempt limit only backs up the event's: a crash mid-attempt costs a job attempt too.
    await enqueueJob(tx, WEBHOOK_JOB, { id }, { orderingKey: `webhook:${request.resourceSid}`, maxAttempts: this.config.webhookMaxAttempts + 10 });
    return id;
  }

  /** Stops the sender thread; attempts in flight count as failed and are retried after a restart. */
  close(): Promise<void> {
    return this.sender.close();
  }

  jobHandlers(): Record<string, JobHandler> {
    return { [WEBHOOK_JOB]: (job, ctx) => this.deliver(job.payload.id, ctx) };
  }

  /** Delay before attempt `attempt + 1`: base · 2^(attempt-1), capped, with jitter over its upper half. */
  retryDelayMs(attempt: number): number {
    const cap = Math.min(this.config.webhookRetryMaxMs, this.config.webhookRetryBaseMs * 2 ** Math.min(30, attempt - 1));
    return Math.max(1, Math.round(cap / 2 + (Math.random() * cap) / 2));
  }

  private async deliver(id: string, ctx: JobContext): Promise<void> {
    const event = await eventToDeliver.first(this.store.db, id);
    if (!event || event.status !== 'pending') return;

    const attempt = event.attempts + 1;
    const result = await this.sender.send({
      url: event.url,
      body: event.payload,
      secret: event.webhook_secret,
      webhookId: id,
      options: { timeoutMs: this.config.webhookTimeoutMs, allowPrivate: this.config.webhookAllowPrivate },
    });
    const giveUp = !result.ok && (result.permanent || attempt >= this.config.webhookMaxAttempts);
    const now = nowIso();
    await this.store.transaction(async (tx) => {
      await insertAttempt.run(tx.db, { event_id: id, attempt, date_attempted: now, duration_ms: result.durationMs, response_status: result.status, error: result.error });
      await recordAttempt.run(tx.db, id, attempt, result.ok ? 'delivered' : giveUp ? 'failed' : 'pending', now);
      if (result.ok && event.on_response) await this.runResponseHandler(tx, id, event.on_response, result);
      if (result.ok || giveUp) await ctx.finishIn(tx);
    });
    if (giveUp) this.logger.warn({ webhookId: id, type: event.type, attempts: attempt, error: result.error }, 'webhook given up');
    if (!result.ok && !giveUp) throw new RetryLater(this.retryDelayMs(attempt), `webhook ${id} attempt ${attempt}: ${result.error}`);
  }

  private async runResponseHandler(tx: Tx, id: string, onResponse: string, result: { status: number | null; body: string; contentType: string }) {
    const { handler, context } = JSON.parse(onResponse) as { handler: string; context: unknown };
    const fn = this.responseHandlers.get(handler);
    if (!fn) return this.logger.error({ webhookId: id, handler }, 'no webhook response handler by this name');
    try {
      await fn(tx, { status: result.status ?? 0, body: result.body, contentType: result.contentType }, context);
    } catch (err) {
      // A bad reply is the receiver's mistake: the delivery itself succeeded and is not repeated.
      this.logger.warn({ err, webhookId: id, handler }, 'webhook response could not be used');
    }
  }
}
