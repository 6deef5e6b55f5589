// The outbound pipeline after acceptance: the dispatch job (schedule, validity, pacing, hand-over to the carrier)
// and the carrier's reports (status changes, inbound arrivals). Every step is one transaction with its job.
import {
  inboundOf,
  type Carrier,
  type CarrierReports,
  type InboundMessage,
  type MessageReport,
  type OutboundMessage,
  type ScheduleWork,
} from '../carrier/carrier.js';
import type { Dialect, Tx } from '../store/db.js';
import type { MessageRow, MessageStatus } from '../store/schema.js';
import { enqueueJob, jobRow } from '../jobs/queue.js';
import type { JobContext } from '../jobs/worker.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import { nowIso } from '../clock.js';
import { newSid } from '../ids.js';
import type { MessageEvents } from './events.js';
import {
  insertMessage,
  markSendingFromHeld,
  messageBySid,
  queuedFrom,
  forgetSendSlot,
  queuedFromHeld,
  takeSlotAndSend,
  transition,
  transitionWithHolder,
} from './store.js';
import { incomingNumber, type Holder } from '../numbers/store.js';
import { countSegments } from './segments.js';

interface DispatchJob {
  sid: string;
  /** The message's sender and end of validity, which never change: the dispatch needs no read of the message before
   * its update to `sending` (absent from jobs enqueued before they were carried). */
  from?: string;
  expiresAt?: string;
  /** The send slot already reserved for this message, when the first run had to wait for it. */
  slot?: string;
}

// Grouped: a dispatch is one transaction of a few statements, and nothing outside it (the carrier's own work is a job
// it schedules).
const DISPATCH_JOB = defineJob<DispatchJob>('message.dispatch', { grouped: true });

/** Which statuses a report may follow: a report that arrives out of place changes nothing. */
const REPORT_FROM: Record<MessageReport['status'], readonly MessageStatus[]> = {
  sent: ['sending'],
  delivered: ['sent'],
  undelivered: ['sent'],
  failed: ['queued', 'sending', 'sent'],
  read: ['delivered'],
};

/** The dispatch job of a queued message, due at `runAt` (now by default). */
export async function enqueueDispatch(tx: Tx, message: MessageRow, runAt?: Date): Promise<void> {
  await enqueueJob(tx, DISPATCH_JOB, dispatchOf(message), { runAt });
}

function dispatchOf(message: MessageRow): DispatchJob {
  return { sid: message.sid, from: message.from_number, expiresAt: message.expires_at };
}

/** The row of the job `enqueueDispatch` adds, for a send written in one statement (messages/store.ts, sendBatch). */
export function dispatchJobRow(message: MessageRow, runAt: Date | undefined, now: number) {
  return jobRow(DISPATCH_JOB, dispatchOf(message), { runAt }, now);
}

export class MessagePipeline implements CarrierReports {
  constructor(
    private readonly carrier: Carrier,
    private readonly events: MessageEvents,
    private readonly dialect: Dialect,
  ) {}

  jobHandlers(): JobHandling[] {
    return [DISPATCH_JOB.handle((job, ctx) => this.dispatch(job.payload, ctx))];
  }

  private async dispatch(job: DispatchJob, ctx: JobContext): Promise<void> {
    await ctx.transaction(async (tx) => {
      if (!(await this.dispatchQueued(tx, job, ctx))) await ctx.finishIn(tx);
    });
  }

  /**
   * Sends the message if it is still queued, fails it, or waits for its send slot. Its job carries on as the next
   * step (a later try, or the carrier's work once handed over) rather than ending for a new one: true when it did.
   */
  private async dispatchQueued(tx: Tx, job: DispatchJob, ctx: JobContext): Promise<boolean> {
    let { from, expiresAt } = job;
    if (!from || !expiresAt) {
      const message = await messageBySid(tx.db, job.sid);
      if (message?.status !== 'queued') return false;
      ({ from_number: from, expires_at: expiresAt } = message);
    }
    const tryAgain = async (next: DispatchJob, runAt: Date) => {
      await ctx.continueIn(tx, DISPATCH_JOB, next, runAt);
      return true;
    };
    const expires = Date.parse(expiresAt);
    if (tx.clock.now() > expires) {
      const message = await messageBySid(tx.db, job.sid);
      if (message?.status !== 'queued') return false;
      await this.applyReport(tx, {
        sid: message.sid,
        status: 'failed',
        errorCode: 'validity_period_expired',
        errorMessage: `The message could not be sent within its validity period of ${message.validity_period} s.`,
      });
      return false;
    }
    let carriedOn = false;
    const carryOn: ScheduleWork = (tx, type, payload, runAt) => {
      carriedOn = true;
      return ctx.continueIn(tx, type, payload, runAt);
    };
    /** Hands the message over once marked `sending` (undefined: it was no longer queued, or its sender is gone). */
    const handOverMarked = async (sending: MessageRow | undefined) => {
      if (!sending) {
        await this.failUnheldSender(tx, job.sid);
        return false;
      }
      await this.handOver(tx, sending, carryOn);
      return carriedOn;
    };
    if (job.slot) return handOverMarked(await this.markSending(tx, job.sid));
    // No slot is taken for a message no longer queued, or from a number its account released (the number's slots
    // may be another account's by now).
    const taken = await this.takeSlot(tx, job.sid, from, expires);
    if (taken === 'unsendable') return handOverMarked(undefined);
    const { slot, marked } = taken;
    const next = { sid: job.sid, from, expiresAt };
    // No slot before it expires: come back when it does, to fail it then.
    if (!slot) return tryAgain(next, new Date(expires + 1));
    // Against the clock read after the reservation: a free slot is that moment, later than the clock read before
    // it by the round trips between, and is not a slot to wait for.
    if (slot.getTime() > tx.clock.now()) return tryAgain({ ...next, slot: slot.toISOString() }, slot);
    return handOverMarked(marked ? marked.sending : await this.markSending(tx, job.sid));
  }

  /**
   * The sender's next send slot, no later than `expires` (null: none, nothing taken), or 'unsendable' (nothing
   * taken) when the message is no longer queued or its account no longer holds `from`. On PostgreSQL, with a carrier
   * that paces by the platform's send slots, one statement does it all and also marks the message `sending` when the
   * slot is now: `marked` then holds the message's new row (undefined: it was no longer queued).
   */
  private async takeSlot(
    tx: Tx,
    sid: string,
    from: string,
    expires: number,
  ): Promise<{ slot: Date | null; marked?: { sending: MessageRow | undefined } } | 'unsendable'> {
    const interval = this.carrier.sendSlotIntervalMs;
    if (this.dialect !== 'postgres' || interval === undefined) {
      if (!(await queuedFromHeld(tx.db, sid))) return 'unsendable';
      return { slot: await this.carrier.reserveSendSlot(tx, from, new Date(expires)) };
    }
    const now = nowIso(tx.clock);
    const taken = await takeSlotAndSend(tx.db, sid, from, {
      now,
      notAfter: new Date(expires).toISOString(),
      intervalMs: interval,
    });
    if (!taken.sendable) return 'unsendable';
    if (!taken.slot) return { slot: null };
    const slot = new Date(taken.slot);
    return taken.slot <= now ? { slot, marked: { sending: taken.sending } } : { slot };
  }

  /**
   * The first step of a message sent with no dispatch job between (a proxy relay: the inbound message's transaction
   * sends it on), before the message is inserted: its send slot, reserved now. The message is then inserted `sending`
   * when the slot is free at once (see `dispatchReserved`), else `queued`.
   */
  async reserveNow(tx: Tx, message: MessageRow): Promise<{ slot: Date | null; now: boolean }> {
    const slot = await this.carrier.reserveSendSlot(tx, message.from_number, new Date(Date.parse(message.expires_at)));
    return { slot, now: slot !== null && slot.getTime() <= tx.clock.now() };
  }

  /**
   * After `reserveNow` and the insert: a message inserted `sending` (its slot was free) goes to the carrier in this
   * transaction, with its status change's events; a queued one gets its dispatch job, holding the slot it reserved
   * (or, with none before it expires, coming back when it does, to fail it then).
   */
  async dispatchReserved(tx: Tx, message: MessageRow, slot: Date | null): Promise<void> {
    if (message.status === 'sending') {
      await this.events.statusChanged(tx, message);
      const schedule: ScheduleWork = (tx, type, payload, runAt) => enqueueJob(tx, type, payload, { runAt });
      return this.submit(tx, message, schedule);
    }
    if (!slot) return enqueueDispatch(tx, message, new Date(Date.parse(message.expires_at) + 1));
    await enqueueJob(tx, DISPATCH_JOB, { ...dispatchOf(message), slot: slot.toISOString() }, { runAt: slot });
  }

  /** Marks the message `sending` if it is still queued and its account still holds its sender: its new row, or
   * undefined. */
  private markSending(tx: Tx, sid: string): Promise<MessageRow | undefined> {
    return markSendingFromHeld(tx.db, sid, { status: 'sending', date_updated: nowIso(tx.clock) });
  }

  /**
   * A number its account released, in the release's transaction: the account's messages still queued from it fail
   * now (none goes out from it, whoever holds it next, the same account included), and its pacing starts afresh, so
   * that the slots those messages had taken do not hold back its next holder's.
   */
  async numberReleased(tx: Tx, released: { account_sid: string; phone_number: string }): Promise<void> {
    for (const sid of await queuedFrom(tx.db, released.account_sid, released.phone_number)) {
      await this.applyReport(tx, releasedFailure(sid, released.phone_number));
    }
    await forgetSendSlot(tx.db, released.phone_number);
  }

  /**
   * After a mark that found the message not to send: one still queued is from a number its account released since
   * it was accepted (perhaps held by another account by now), and fails rather than go out from it. Rare: read then.
   */
  private async failUnheldSender(tx: Tx, sid: string): Promise<void> {
    const message = await messageBySid(tx.db, sid);
    if (message?.status !== 'queued') return;
    await this.applyReport(tx, releasedFailure(sid, message.from_number));
  }

  /** Hands a message just marked `sending` to the carrier, whose follow-up work `schedule` keeps, with its status
   * change's events. */
  private async handOver(tx: Tx, sending: MessageRow, schedule: ScheduleWork): Promise<void> {
    await this.events.statusChanged(tx, sending);
    await this.submit(tx, sending, schedule);
  }

  /** Hands a `sending` message to the carrier, whose follow-up work `schedule` keeps. */
  private submit(tx: Tx, sending: MessageRow, schedule: ScheduleWork): Promise<void> {
    return this.carrier.submitMessage(tx, outboundMessage(sending), schedule);
  }

  /** Applies the report; the message as it leaves it (as it was, when the report came out of place). */
  async messageStatus(tx: Tx, report: MessageReport): Promise<OutboundMessage | undefined> {
    const row = (await this.applyReport(tx, report)) ?? (await messageBySid(tx.db, report.sid));
    return row && outboundMessage(row);
  }

  /** The message's new row, when the report changed it. */
  private async applyReport(tx: Tx, report: MessageReport): Promise<MessageRow | undefined> {
    const updated = await transition(tx.db, report.sid, REPORT_FROM[report.status], reportChange(tx, report));
    if (updated) await this.events.statusChanged(tx, updated);
    return updated;
  }

  /**
   * The network delivered the message to its recipient: applies the `delivered` report, then, when the recipient's
   * number is held on this platform, stores the message there as inbound (`inboundMessage`). On PostgreSQL the
   * report's update reads the number's holder too, a round trip less a message. The message as the report leaves it.
   */
  async messageDelivered(tx: Tx, sid: string): Promise<OutboundMessage | undefined> {
    const report = { sid, status: 'delivered' } as const;
    if (this.dialect === 'postgres') {
      const delivered = await transitionWithHolder(tx.db, sid, REPORT_FROM.delivered, reportChange(tx, report));
      if (delivered) {
        const { row, holder } = delivered;
        await this.events.statusChanged(tx, row);
        const message = outboundMessage(row);
        // The message itself is the origin that `inboundMessage` would read.
        if (holder) await this.receive(tx, holder, inboundOf(message), row);
        return message;
      }
    }
    // On PostgreSQL the update above found the report out of place.
    const updated = this.dialect === 'postgres' ? undefined : await this.applyReport(tx, report);
    // A report out of place changed nothing: the message as it is, delivered all the same.
    const row = updated ?? (await messageBySid(tx.db, sid));
    if (!row) return undefined;
    const message = outboundMessage(row);
    await this.inboundMessage(tx, inboundOf(message));
    return message;
  }

  /**
   * A message arriving at a number held on this platform: stored for its holder, then relayed to the other
   * participant when it comes from a participant of an open proxy session on that number, else sent to its sms_url.
   */
  async inboundMessage(tx: Tx, inbound: InboundMessage): Promise<void> {
    const number = await incomingNumber(tx.db, inbound.to);
    if (!number) return;
    const origin = inbound.originSid ? await messageBySid(tx.db, inbound.originSid) : undefined;
    await this.receive(tx, number, inbound, origin);
  }

  /** `inboundMessage` once the holder of its number and the platform message it was sent as (if any) are known. */
  private async receive(tx: Tx, number: Holder, inbound: InboundMessage, origin: MessageRow | undefined) {
    const row = inboundRow(number.account_sid, inbound, tx.clock.now());
    await insertMessage(tx.db, row);
    // A reply (or a proxy relay, which is sent as one) arriving at a number that answers with replies, or that
    // relays, would ping-pong forever: only first messages get a reply or a relay.
    await this.events.received(tx, row, number.sms_url, origin?.direction !== 'outbound-reply');
  }
}

/** The change a report makes to its message's row. */
function reportChange(tx: Tx, report: MessageReport) {
  const now = nowIso(tx.clock);
  return {
    status: report.status,
    date_updated: now,
    ...(report.status === 'sent'
      ? { date_sent: now, price: report.price ?? null, price_unit: report.priceUnit ?? 'USD' }
      : {}),
    ...(report.errorCode ? { error_code: report.errorCode, error_message: report.errorMessage ?? null } : {}),
  };
}

/** What a carrier is handed of a stored outbound message. */
function outboundMessage(row: MessageRow): OutboundMessage {
  return {
    sid: row.sid,
    accountSid: row.account_sid,
    from: row.from_number,
    to: row.to_number,
    body: row.body,
    mediaUrls: JSON.parse(row.media_url) as string[],
    channel: row.channel,
    numSegments: row.num_segments,
    validUntil: row.expires_at,
  };
}

/** The stored row of a message that arrived at `at` (ms, by the clock). */
export function inboundRow(accountSid: string, inbound: InboundMessage, at: number): MessageRow {
  const now = new Date(at).toISOString();
  const channel = inbound.channel === 'rcs' ? 'rcs' : inbound.mediaUrls.length ? 'mms' : 'sms';
  return {
    sid: newSid('message', at),
    account_sid: accountSid,
    from_number: inbound.from,
    to_number: inbound.to,
    body: inbound.body,
    media_url: JSON.stringify(inbound.mediaUrls),
    num_media: inbound.mediaUrls.length,
    num_segments: channel === 'sms' ? countSegments(inbound.body) : 1,
    status: 'received',
    direction: 'inbound',
    channel,
    price: null,
    price_unit: 'USD',
    error_code: null,
    error_message: null,
    send_at: null,
    validity_period: 14400,
    expires_at: now,
    status_callback: null,
    origin_sid: inbound.originSid ?? null,
    date_created: now,
    date_updated: now,
    date_sent: now,
  };
}

/** A queued message's end when its `from` left its account before it was sent. */
function releasedFailure(sid: string, from: string): MessageReport {
  return {
    sid,
    status: 'failed',
    errorCode: 'from_number_released',
    errorMessage: `${from} was released from your account before the message was sent.`,
  };
}
