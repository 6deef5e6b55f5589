// The one webhook delivery engine of the product. A webhook is recorded (an event row, its own durable queue: see
// queue.ts) in the transaction of the change that causes it, delivered at least once, signed per Standard Webhooks
// with the account's secret, retried with exponential backoff and jitter, and kept in order per resource. Every
// attempt is recorded.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { QueueSignal, Store, Tx } from '../store/db.js';
import { ClaimLoop, claimedTooOften, type ClaimLoopOptions } from '../jobs/claim-loop.js';
import { isoIn, nowIso } from '../clock.js';
import { newWebhookId } from './sign.js';
import { Savepoint } from '../store/savepoint.js';
import { WebhookSender } from './sender.js';
import { failedAttempt, type AttemptResult } from './deliver.js';
import { EndedAttempts } from './ended-attempts.js';
import { claimEvents, recordAttempt, recordEvent, releaseEvent, releaseEvents, type ClaimedEvent } from './queue.js';
import { eventsOfResources, retryGivenUpEvent, type DeliveryEvent } from './queue.js';
import { webhookSecrets } from '../accounts/store.js';
import type { WebhookSecretBox } from '../accounts/webhook-secrets.js';
import type { Counters } from '../system/metrics.js';

/** What signing needs: the account's secrets in clear (the current one first), or why there are none. */
type Signing = { secrets: string[] | undefined; secretError?: string };

/** A claimed event with what signing it needs. */
type DueEvent = ClaimedEvent & Signing;

/** How much of each answer is kept with its attempt, for people reading the deliveries. */
const EXCERPT_BYTES = 512;

/** A reply handler's writes, undone alone when it fails (compiled once, not at each delivery). */
const REPLY_SAVEPOINT = new Savepoint('reply');

/** The answer's first bytes as text (a NUL, which PostgreSQL refuses in text, dropped). */
function excerpt(body: string): string {
  return Buffer.from(body).subarray(0, EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', '');
}

/** The secrets kept open, by account; an account's entry stands while its stored (sealed) value is unchanged. */
const OPENED_CACHE_SIZE = 10_000;

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

interface WebhookResponse {
  status: number;
  body: string;
  contentType: string;
}

/**
 * Runs inside the transaction that records the successful attempt, under a savepoint: when it throws, its own writes
 * are undone (and the reason logged) while the attempt stays recorded, so the event is not delivered again.
 */
export type ResponseHandler = (tx: Tx, response: WebhookResponse, context: any) => Promise<void>;

type WebhookConfig = Pick<
  Config,
  'webhookTimeoutMs' | 'webhookRetryBaseMs' | 'webhookRetryMaxMs' | 'webhookMaxAttempts' | 'webhookAllowPrivate'
>;

export type DeliveryOptions = Omit<ClaimLoopOptions, 'name' | 'wake'> & {
  /** The instance's worker id: who holds a claimed event. */
  workerId: string;
  leaseMs: number;
  /** JOB_MAX_CLAIMS: claims without an ended attempt before an event is marked dead (see Claim). */
  maxClaims?: number;
};

export class WebhookService {
  private readonly responseHandlers = new Map<string, ResponseHandler>();
  private readonly sender = new WebhookSender();
  /**
   * Secrets already opened, by account, with the stored value they were opened from: unsealing (AES-GCM) is done
   * once per account and stored value, not per claimed event, so the claim path costs about what it did when
   * secrets were read in clear. A rotated (re-sealed) secret has a new stored value and is opened anew.
   */
  private readonly opened = new Map<string, { stored: string; secret: string; previous: string | undefined }>();
  /** PostgreSQL: the ended attempts without a response handler, recorded together per turn of the event loop. */
  private readonly ended: EndedAttempts;

  constructor(
    private readonly store: Store,
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
    /** Opens the accounts' sealed signing secrets. */
    private readonly secrets: WebhookSecretBox,
    /** Counts the attempts for /metrics. Attempts are made in the sender's thread but end here, on the main one. */
    private readonly counters?: Pick<Counters, 'webhookAttempt'>,
  ) {
    this.ended = new EndedAttempts(store.db);
  }

  /** Registers what to do with the body of a 2xx response for webhooks enqueued with `onResponse.handler` = name. */
  handleResponses(name: string, handler: ResponseHandler): void {
    this.responseHandlers.set(name, handler);
  }

  /** Records a webhook to send; call inside the transaction of the change it reports. Returns its webhook-id. */
  async enqueue(tx: Tx, request: WebhookRequest): Promise<string> {
    const id = newWebhookId(tx.clock.now());
    const now = nowIso(tx.clock);
    await recordEvent(tx, this.store.dialect, {
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
    return id;
  }

  /** Every webhook event of these resources of the account, oldest first, with every attempt (the dashboard's). */
  deliveries(accountSid: string, resourceSids: string[]): Promise<DeliveryEvent[]> {
    return eventsOfResources(this.store.db, accountSid, resourceSids);
  }

  /** Makes a given-up event of the account due again now, for one more attempt; false when there is none such. */
  async retryNow(accountSid: string, eventId: string): Promise<boolean> {
    // A form's field: one with a NUL names no event (PostgreSQL's text cannot hold one; the query would fail).
    if (eventId.includes('\u0000')) return false;
    return this.store.transaction((tx) =>
      retryGivenUpEvent(tx, this.store.dialect, accountSid, eventId, nowIso(tx.clock)),
    );
  }

  /**
   * Gives back the pending events `workerId` still holds (attempts that did not end before a shutdown's bound): due
   * again at once for any instance. Their attempts, once the sender closes, find their lease gone and record nothing.
   */
  async releaseHeld(workerId: string): Promise<void> {
    const released = await releaseEvents(this.store.db, workerId);
    if (released) this.logger.warn({ released }, 'webhook delivery: released the events still in hand at shutdown');
  }

  /** Stops the sender thread; attempts in flight count as failed and are retried after a restart. */
  close(): Promise<void> {
    return this.sender.close();
  }

  /** The loop that delivers due events: one per instance, beside its job worker. */
  deliveryLoop(options: DeliveryOptions): ClaimLoop<DueEvent> {
    const { workerId, leaseMs, maxClaims } = options;
    return new ClaimLoop<DueEvent>(
      async (limit) => {
        const { db, dialect, clock } = this.store;
        const claimed = await claimEvents(db, dialect, { workerId, limit, leaseMs, now: clock.now(), maxClaims });
        const events = claimed.filter((event) => !event.dead);
        // Marked dead by this very claim, so logged once, by this instance only.
        for (const event of claimed.filter((e) => e.dead)) {
          const about = { webhookId: event.id, type: event.type, reason: claimedTooOften(event.claims) };
          this.logger.error(about, 'webhook event dead');
        }
        if (!events.length) return [];
        const secrets = await this.openSecrets([...new Set(events.map((e) => e.account_sid))]);
        return events.map((event): DueEvent => ({
          ...event,
          ...(secrets.get(event.account_sid) ?? { secrets: undefined }),
        }));
      },
      (event) => this.deliver(event, workerId),
      this.logger,
      {
        ...options,
        name: 'webhook delivery',
        wake: { emitter: this.store.signals, event: 'webhooks' satisfies QueueSignal },
      },
    );
  }

  /**
   * The account's signing secrets in clear (the current one, and a rotated one still valid), for other requests
   * signed like webhooks (a call's instructions fetch); undefined when the account is gone or they cannot be opened.
   */
  async signingSecret(accountSid: string): Promise<string[] | undefined> {
    return (await this.openSecrets([accountSid])).get(accountSid)?.secrets;
  }

  /**
   * Each account's secret, opened once for the batch. One that cannot be opened (stored in clear, or sealed under
   * another server secret) fails only its own account's events, logged once here naming the account; the others
   * are delivered. An account that no longer exists has neither.
   */
  private async openSecrets(accounts: string[]): Promise<Map<string, Signing>> {
    const sealed = await webhookSecrets(this.store.db, accounts);
    const now = nowIso(this.store.clock);
    const result = new Map<string, Signing>();
    for (const account of accounts) {
      const stored = sealed.get(account);
      if (stored === undefined) {
        result.set(account, { secrets: undefined });
        continue;
      }
      // The previous secret signs too until it expires (a rotation's 24 hours), checked on every claim.
      const withPrevious = (opened: { secret: string; previous: string | undefined }) =>
        opened.previous !== undefined && stored.previousExpires !== null && stored.previousExpires > now
          ? [opened.secret, opened.previous]
          : [opened.secret];
      const key = `${stored.current} ${stored.previous ?? ''}`;
      const cached = this.opened.get(account);
      if (cached?.stored === key) {
        result.set(account, { secrets: withPrevious(cached) });
        continue;
      }
      try {
        const secret = this.secrets.open(account, stored.current);
        const previous = stored.previous === null ? undefined : this.secrets.open(account, stored.previous);
        if (this.opened.size >= OPENED_CACHE_SIZE) this.opened.clear();
        const opened = { stored: key, secret, previous };
        this.opened.set(account, opened);
        result.set(account, { secrets: withPrevious(opened) });
      } catch (err) {
        this.opened.delete(account);
        const reason = `the webhook secret of account ${account} cannot be opened with this server secret`;
        this.logger.error({ err, accountSid: account }, 'webhook secret cannot be opened; its events fail');
        result.set(account, { secrets: undefined, secretError: reason });
      }
    }
    return result;
  }

  /** Delay before attempt `attempt + 1`: base · 2^(attempt-1), capped, with jitter over its upper half. */
  retryDelayMs(attempt: number): number {
    const cap = Math.min(
      this.config.webhookRetryMaxMs,
      this.config.webhookRetryBaseMs * 2 ** Math.min(30, attempt - 1),
    );
    return Math.max(1, Math.round(cap / 2 + (Math.random() * cap) / 2));
  }

  private async deliver(event: DueEvent, workerId: string): Promise<void> {
    const attempt = event.attempts + 1;
    const result: AttemptResult = event.secretError
      ? failedAttempt(event.secretError, true)
      : event.secrets
        ? await this.sender.send({
            url: event.url,
            body: event.payload,
            secrets: event.secrets,
            webhookId: event.id,
            timestamp: this.store.clock.now(),
            options: { timeoutMs: this.config.webhookTimeoutMs, privateAddresses: this.config.webhookAllowPrivate },
          })
        : failedAttempt('the account of this event no longer exists', true);
    const giveUp = !result.ok && (result.permanent || attempt >= this.config.webhookMaxAttempts);
    const now = nowIso(this.store.clock);
    const runAt = result.ok || giveUp ? now : isoIn(this.store.clock, this.retryDelayMs(attempt));
    const status = result.ok ? 'delivered' : giveUp ? 'failed' : 'pending';
    const outcome = { attempts: attempt, status, runAt, now } as const;
    const attemptRow = {
      event_id: event.id,
      attempt,
      date_attempted: now,
      duration_ms: result.durationMs,
      response_status: result.status,
      error: result.error,
      response_excerpt: result.status === null ? null : excerpt(result.body),
    };
    const handler = result.ok ? event.on_response : null;
    // Lost lease: this instance was taken for dead and another holds the event now; its attempt is the one on record.
    const recorded =
      this.store.dialect === 'postgres' && !handler
        ? await this.ended.record({ id: event.id, workerId, outcome, attempt: attemptRow })
        : await this.store.transaction(async (tx) => {
            if (!(await releaseEvent(tx.db, this.store.dialect, event.id, workerId, outcome))) return false;
            await recordAttempt(tx.db, attemptRow);
            if (handler) await this.runResponseHandler(tx, event.id, handler, result);
            return true;
          });
    if (recorded) this.counters?.webhookAttempt(result.ok ? 'delivered' : giveUp ? 'given_up' : 'retrying');
    if (!recorded || result.ok) return;
    const about = { webhookId: event.id, type: event.type, attempts: attempt, error: result.error };
    if (giveUp) this.logger.warn(about, 'webhook given up');
    else this.logger.info({ ...about, nextAttemptAt: runAt }, 'webhook attempt failed; retrying later');
  }

  private async runResponseHandler(
    tx: Tx,
    id: string,
    onResponse: string,
    result: { status: number | null; body: string; contentType: string },
  ) {
    const { handler, context } = JSON.parse(onResponse) as { handler: string; context: unknown };
    const fn = this.responseHandlers.get(handler);
    if (!fn) return this.logger.error({ webhookId: id, handler }, 'no webhook response handler by this name');
    // Under a savepoint: a handler that fails (a reply refused, or an insert the database rejects, which on
    // PostgreSQL aborts the whole transaction) undoes only its own writes, and the attempt and the release of the
    // event recorded before it still commit, so the event is not delivered again.
    // Only the handler's own failure is the receiver's: a failure of the savepoint's statements fails the attempt.
    const response = { status: result.status ?? 0, body: result.body, contentType: result.contentType };
    const refused = await REPLY_SAVEPOINT.errorOf(tx, (step) => fn(step, response, context));
    if (refused) {
      // A bad reply is the receiver's mistake: the delivery itself succeeded and is not repeated.
      const { err } = refused;
      const reason = err instanceof Error ? err.message : String(err);
      this.logger.warn({ err, webhookId: id, handler, reason }, 'webhook response refused; the delivery stands');
    }
  }
}
