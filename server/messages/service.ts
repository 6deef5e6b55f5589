// Messages: the rules of sending, reading, deleting and receiving. `sendMessage` is the entry point for every
// feature that sends a message (the API, inbound replies, verification codes), with the tenant explicit.
import type { Logger } from 'pino';
import type { Carrier } from '../carrier/carrier.js';
import type { Store, Tx } from '../store/db.js';
import type { MessageRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import type { PageRequest } from '../store/pagination.js';
import { errors } from '../errors.js';
import { nowIso } from '../clock.js';
import { newSid } from '../ids.js';
import { MessageEvents, REPLY_HANDLER, type InboundRelay, type MessageListener, type ReplyContext } from './events.js';
import { MessagePipeline, dispatchJobRow, enqueueDispatch, inboundRow } from './pipeline.js';
import { jobCommitted } from '../jobs/queue.js';
import { parseReplies } from './replies.js';
import { countSegments, longerThan } from './segments.js';
import * as messages from './store.js';
import { incomingNumber } from '../numbers/store.js';
import { assertUrlsAllowed, type PrivateAddressPolicy } from '../webhooks/url-policy.js';
import { FINAL_STATUSES, messageView, type MessageRecord } from './view.js';
import type { ResponseRecorder } from '../idempotency/recorder.js';
import { createdRange, instantParam } from '../http/instant.js';
import { Savepoint } from '../store/savepoint.js';
import { SendBatches } from './send-batches.js';

const MAX_SCHEDULE_AHEAD_MS = 35 * 24 * 3600 * 1000;
const DEFAULT_VALIDITY_PERIOD = 14400;
const MAX_BODY = 1600;
const MAX_MEDIA = 10;

export interface SendMessageInput {
  from: string;
  to: string;
  body?: string;
  media_url?: string[];
  send_at?: string;
  status_callback?: string;
  validity_period?: number;
  channel?: 'auto' | 'sms' | 'mms' | 'rcs';
}

export interface SendOptions {
  direction?: 'outbound-api' | 'outbound-reply';
  /** Send inside this transaction, so the message exists only if the change that causes it commits. */
  tx?: Tx;
  /** Skip the check that `from` is a number of the account (for platform senders, e.g. verification codes). */
  trustedFrom?: boolean;
  /** The inbound message this one answers (or relays). */
  originSid?: string;
  /**
   * Refuse with `message_queue_full` when the account's queue is full, as for `outbound-api`, though the direction
   * is `outbound-reply` (a proxy relay, which records the failure). In the caller's `tx`, a refusal leaves nothing of
   * the send written, and the caller's transaction goes on.
   */
  refuseWhenQueueFull?: boolean;
  /** An idempotent request's: records the answer in the transaction of the send. */
  recorder?: ResponseRecorder;
  /**
   * Hand the message to the carrier in this transaction when its send slot is free now, with no dispatch job
   * between (a proxy relay; ignored with `send_at`). The record answered is the message as it was queued.
   */
  dispatchNow?: boolean;
}

export interface InboundInput {
  from: string;
  to: string;
  body?: string;
  media_url?: string[];
}

export class MessageService {
  readonly events: MessageEvents;
  readonly pipeline: MessagePipeline;
  private readonly sends: SendBatches;

  constructor(
    private readonly store: Store,
    private readonly carrier: Carrier,
    webhooks: WebhookService,
    private readonly logger: Logger,
    /** MAX_QUEUED_MESSAGES: the most messages one account has `queued` at once. */
    private readonly maxQueued: number,
    /** Which non-public addresses given URLs may point at (WEBHOOK_ALLOW_PRIVATE). */
    private readonly privateAddresses: PrivateAddressPolicy,
  ) {
    this.events = new MessageEvents(webhooks);
    this.pipeline = new MessagePipeline(carrier, this.events, store.dialect);
    this.sends = new SendBatches(store, maxQueued);
    webhooks.handleResponses(REPLY_HANDLER, (tx, response, context: ReplyContext) =>
      this.sendReplies(tx, response.body, response.contentType, context),
    );
  }

  /** Other features follow messages here: every status change of an outbound message, every inbound message. */
  onStatusChange(listener: MessageListener): void {
    this.events.onStatusChange(listener);
  }

  onInbound(listener: MessageListener): void {
    this.events.onInbound(listener);
  }

  /** Proxy sessions take the inbound messages they relay here, away from the number's sms_url. */
  relayInbound(relay: InboundRelay): void {
    this.events.relayInbound(relay);
  }

  /** Throws the 400 that `sendMessage` answers for a message it refuses before looking at the database. */
  private checkSendInput(input: SendMessageInput): void {
    const body = input.body ?? '';
    const media = input.media_url ?? [];
    if (!body && media.length === 0) throw errors.invalidField('body', 'body or media_url is required');
    if (longerThan(body, MAX_BODY)) throw errors.invalidField('body', `must be at most ${MAX_BODY} characters`);
    if (media.length > MAX_MEDIA) throw errors.invalidField('media_url', `must have at most ${MAX_MEDIA} items`);
    if (media.some((url) => !/^https?:\/\/\S+$/.test(url)))
      throw errors.invalidField('media_url', 'must be http or https URLs');
    if (input.channel === 'sms' && media.length)
      throw errors.invalidField('media_url', 'cannot be sent with channel sms; use auto, mms or rcs');
    const { channels, name } = this.carrier;
    if ((media.length || input.channel === 'mms') && !channels.has('mms'))
      throw errors.channelUnavailable('MMS (a message with media_url)', name);
    if (input.channel === 'rcs' && !channels.has('rcs')) throw errors.channelUnavailable('RCS', name);
    assertUrlsAllowed(this.privateAddresses, { media_url: media, status_callback: input.status_callback });
  }

  async sendMessage(accountSid: string, input: SendMessageInput, options: SendOptions = {}): Promise<MessageRecord> {
    this.checkSendInput(input);
    const row = await this.outboundRow(accountSid, input, options);
    const view = messageView(row);
    const sendAt = row.send_at === null ? undefined : new Date(row.send_at);
    const dispatchNow = options.dispatchNow && !sendAt;
    const alone = !options.tx && !options.recorder && !dispatchNow && !options.trustedFrom;
    if (alone && this.store.dialect === 'postgres' && row.direction === 'outbound-api') {
      await this.sendInBatch(row, sendAt);
      return view;
    }

    const refusable = row.direction === 'outbound-api' || options.refuseWhenQueueFull;
    // SQLite runs one transaction at a time: admitted before anything is written, so a refusal leaves nothing to undo.
    // PostgreSQL admits after the send slot's row lock (see below): a refusal in the caller's transaction is undone
    // under a savepoint. Except in a transaction shared by a group of jobs (a relay sent by a delivered report), where
    // a savepoint would undo the other jobs' statements too: admitted first there. Near the quota, where the
    // admission waits for the account's sends in flight, that order can deadlock with a send that holds the slot
    // first; PostgreSQL then ends one of them, and the group's jobs run again alone.
    const admitFirst = refusable && (this.store.dialect === 'sqlite' || options.tx?.shared === true);
    const admit = async (tx: Tx) => {
      // Exact under concurrent sends (see roomInQueue); a message inserted `sending` is refused as one queued would
      // be, when the queue is full without it. Replies to inbound messages are not refused (they answer traffic the
      // account does not control), but count.
      if (!(await messages.roomInQueue(tx.db, this.store.dialect, accountSid, this.maxQueued))) {
        throw errors.messageQueueFull(this.maxQueued);
      }
    };
    const run = async (tx: Tx) => {
      // A trusted sender (a proxy number relaying) is the account's without asking, but can it send this?
      const number = await incomingNumber(tx.db, input.from);
      if (!options.trustedFrom && number?.account_sid !== accountSid) throw errors.fromNumberNotOwned(input.from);
      const missing = number && missingCapability(number.capabilities, row.channel);
      if (missing) throw errors.fromNumberNotCapable(input.from, missing);
      if (!admitFirst) return write(tx);
      await admit(tx);
      if (!options.tx) return write(tx);
      // In the caller's transaction, with no savepoint: what fails from here on has written part of the send, so it
      // must fail the caller's transaction whole, never read as a refusal (an ApiError) that the caller commits past.
      return write(tx).catch((err: unknown) => {
        throw new Error('a send failed after its first write', { cause: err });
      });
    };
    const write = async (tx: Tx) => {
      // A message sent with no dispatch job between reserves its send slot first: when the slot is free now, it is
      // inserted `sending` and handed over at once (one write of its row instead of an insert and an update), and
      // never counts as queued. On PostgreSQL the slot's row lock comes before the insert's count row, as in a
      // dispatch job.
      const reserved = dispatchNow ? await this.pipeline.reserveNow(tx, row) : null;
      const inserted: MessageRow = reserved?.now ? { ...row, status: 'sending' } : row;
      // On PostgreSQL the insert's trigger holds a count row (its connection's stripe) until this transaction ends:
      // what does not need the message row goes before the insert.
      if (!dispatchNow) await enqueueDispatch(tx, row, sendAt);
      await options.recorder?.record(tx, view);
      if (refusable && !admitFirst) await admit(tx);
      await messages.insertMessage(tx.db, inserted);
      if (reserved) await this.pipeline.dispatchReserved(tx, inserted, reserved.slot);
      return view;
    };
    if (!options.tx) return this.store.transaction(run);
    return options.refuseWhenQueueFull && !admitFirst ? SEND_SAVEPOINT.undoneOnThrow(options.tx, run) : run(options.tx);
  }

  /**
   * PostgreSQL, an API send with nothing else to write in its transaction (no Idempotency-Key, whose answer is
   * recorded in the transaction of the work): the checks and writes of the transaction path in one autocommitted
   * statement, so the connection is not held across the event loop's turns between six round trips, and written
   * with the other sends that arrive while the statement before is in flight (send-batches.ts).
   */
  private async sendInBatch(row: MessageRow, sendAt: Date | undefined): Promise<void> {
    const now = Date.parse(row.date_created);
    const job = dispatchJobRow(row, sendAt, now);
    const outcome = await this.sends.send({ message: row, job });
    if (outcome === 'from_number_not_owned') throw errors.fromNumberNotOwned(row.from_number);
    if (outcome === 'from_number_not_capable')
      throw errors.fromNumberNotCapable(row.from_number, neededCapability(row.channel));
    if (outcome === 'message_queue_full') throw errors.messageQueueFull(this.maxQueued);
    jobCommitted(this.store.signals, job, now);
  }

  /** The row of an outbound message as it is queued; throws the 400 of a validity or send time out of bounds. */
  private async outboundRow(accountSid: string, input: SendMessageInput, options: SendOptions): Promise<MessageRow> {
    const body = input.body ?? '';
    const media = input.media_url ?? [];
    const validity = input.validity_period ?? DEFAULT_VALIDITY_PERIOD;
    if (!Number.isInteger(validity) || validity < 1 || validity > DEFAULT_VALIDITY_PERIOD) {
      throw errors.invalidField('validity_period', `must be an integer from 1 to ${DEFAULT_VALIDITY_PERIOD}`);
    }
    const now = this.store.clock.now();
    const sendAt = input.send_at === undefined ? null : parseSendAt(input.send_at, now);
    const requested = input.channel ?? 'auto';
    const rcs =
      (requested === 'auto' || requested === 'rcs') && (await this.carrier.destinationCapabilities(input.to)).rcs;
    const channel = rcs ? 'rcs' : media.length || requested === 'mms' ? 'mms' : 'sms';
    const created = new Date(now).toISOString();
    return {
      sid: newSid('message', now),
      account_sid: accountSid,
      from_number: input.from,
      to_number: input.to,
      body,
      media_url: JSON.stringify(media),
      num_media: media.length,
      num_segments: channel === 'sms' ? countSegments(body) : 1,
      status: 'queued',
      direction: options.direction ?? 'outbound-api',
      channel,
      price: null,
      price_unit: 'USD',
      error_code: null,
      error_message: null,
      send_at: sendAt ? sendAt.toISOString() : null,
      validity_period: validity,
      expires_at: new Date((sendAt?.getTime() ?? now) + validity * 1000).toISOString(),
      status_callback: input.status_callback ?? null,
      origin_sid: options.originSid ?? null,
      date_created: created,
      date_updated: created,
      date_sent: null,
    };
  }

  async getMessage(accountSid: string, sid: string): Promise<MessageRecord> {
    const row = await messages.findMessage(this.store.db, accountSid, sid);
    if (!row) throw errors.noSuchMessage(sid);
    return messageView(row);
  }

  async listMessages(accountSid: string, filters: messages.MessageFilters, page: PageRequest) {
    const normalized = createdRange(filters);
    const result = await messages.listMessages(this.store.db, accountSid, normalized, page);
    return { data: result.data.map(messageView), next_page_token: result.next_page_token };
  }

  /** Deletes a message in a final state; cancels a scheduled one whose time has not come. */
  async deleteMessage(accountSid: string, sid: string): Promise<'deleted' | 'canceled'> {
    // Read again when the conditional change found the message changed since (a DELETE or a cancel at the same
    // moment): it answers as the message is now, never "not final" of a status that is.
    for (let tries = 1; ; tries++) {
      const done = await this.deleteOrCancel(accountSid, sid);
      if (done !== 'changed') return done;
      if (tries === 2) {
        const row = await messages.findMessage(this.store.db, accountSid, sid);
        if (!row) throw errors.noSuchMessage(sid);
        throw errors.messageInFlight(sid, row.status);
      }
    }
  }

  private async deleteOrCancel(accountSid: string, sid: string): Promise<'deleted' | 'canceled' | 'changed'> {
    const row = await messages.findMessage(this.store.db, accountSid, sid);
    if (!row) throw errors.noSuchMessage(sid);
    if (FINAL_STATUSES.includes(row.status)) {
      if (await messages.deleteMessage(this.store.db, accountSid, sid, FINAL_STATUSES)) return 'deleted';
      return 'changed';
    } else if (row.status === 'queued' && row.send_at && Date.parse(row.send_at) > this.store.clock.now()) {
      const canceled = await this.store.transaction(async (tx) => {
        const now = nowIso(tx.clock);
        const change = { status: 'canceled', date_updated: now } as const;
        const updated = await messages.transition(tx.db, sid, ['queued'], change, { sendAtAfter: now });
        if (updated) await this.events.statusChanged(tx, updated);
        return Boolean(updated);
      });
      if (canceled) return 'canceled';
      // Canceled by a request at the same moment: the same answer as that one's, and the message stays.
      const now = await messages.findMessage(this.store.db, accountSid, sid);
      if (now?.status === 'canceled') return 'canceled';
      return 'changed';
    }
    throw errors.messageInFlight(sid, row.status);
  }

  /** Sandbox: a message from an outside number to a number of the account, handled like real inbound traffic. */
  async injectInbound(
    accountSid: string,
    input: InboundInput,
    { recorder }: { recorder?: ResponseRecorder } = {},
  ): Promise<MessageRecord> {
    if (!this.carrier.isSandbox) throw errors.sandboxInactive();
    const media = input.media_url ?? [];
    if (!input.body && media.length === 0) throw errors.invalidField('body', 'body or media_url is required');
    // The API's validator refuses it first; the dashboard's Sandbox page sends here without it.
    if (input.body?.includes('\u0000')) throw errors.invalidField('body', 'must not contain NUL characters');
    assertUrlsAllowed(this.privateAddresses, { media_url: media });
    return this.store.transaction(async (tx) => {
      const number = await incomingNumber(tx.db, input.to);
      if (number?.account_sid !== accountSid) throw errors.toNumberNotOwned(input.to);
      const row = inboundRow(
        accountSid,
        { from: input.from, to: input.to, body: input.body ?? '', mediaUrls: media, channel: 'sms' },
        tx.clock.now(),
      );
      await messages.insertMessage(tx.db, row);
      await this.events.received(tx, row, number.sms_url, true);
      const view = messageView(row);
      await recorder?.record(tx, view);
      return view;
    });
  }

  /**
   * Queues the replies a webhook receiver answered an inbound message with: all of them or none. Every reply is
   * checked before any is inserted (NUL characters, which PostgreSQL cannot store, length, media count, the URL
   * policy), so a refused reply throws before anything is written; the caller runs this under a savepoint, so a
   * failure while inserting undoes the replies already inserted too.
   */
  private async sendReplies(tx: Tx, body: string, contentType: string, context: ReplyContext): Promise<void> {
    const replies = parseReplies(body, contentType).map((reply, i) => ({
      n: i + 1,
      input: { from: context.from, to: context.to, body: reply.body, media_url: reply.mediaUrls },
    }));
    for (const { n, input } of replies) {
      try {
        if (input.body.includes('\u0000')) throw errors.invalidField('body', 'must not contain NUL characters');
        if (input.media_url.some((url) => url.includes('\u0000')))
          throw errors.invalidField('media_url', 'must not contain NUL characters');
        this.checkSendInput(input);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new ReplyRefused(`reply ${n} of ${replies.length} refused: ${reason}`, { cause: err });
      }
    }
    for (const { input } of replies) {
      await this.sendMessage(context.accountSid, input, {
        tx,
        direction: 'outbound-reply',
        originSid: context.inboundSid,
      });
      this.logger.debug({ inboundSid: context.inboundSid }, 'reply to an inbound message queued');
    }
  }
}

/** The savepoint around a send that may be refused in its caller's transaction (a relay on PostgreSQL). */
const SEND_SAVEPOINT = new Savepoint('send');

/** A webhook's reply that is not sent, and why (the receiver's mistake, not the server's). */
class ReplyRefused extends Error {}

function parseSendAt(value: string, now: number): Date {
  // A date that does not exist (31 November) is refused, as the list filters refuse it, not moved to another day.
  const at = Date.parse(instantParam('send_at', value));
  if (at <= now) throw errors.invalidField('send_at', 'must be in the future');
  if (at > now + MAX_SCHEDULE_AHEAD_MS) throw errors.invalidField('send_at', 'must be at most 35 days ahead');
  return new Date(at);
}

/** What a message on `channel` needs of its sending number: MMS for an MMS message, SMS for an SMS or RCS one.
 * SEND_BATCH (store.ts) asks the same in SQL. */
function neededCapability(channel: MessageRow['channel']): 'SMS' | 'MMS' {
  return channel === 'mms' ? 'MMS' : 'SMS';
}

/** What the number's capabilities (JSON, as stored) lack of what a message on `channel` needs; null when none. */
function missingCapability(capabilities: string, channel: MessageRow['channel']): 'SMS' | 'MMS' | null {
  const holds = JSON.parse(capabilities) as { sms: boolean; mms: boolean };
  const needed = neededCapability(channel);
  return holds[needed === 'MMS' ? 'mms' : 'sms'] ? null : needed;
}
