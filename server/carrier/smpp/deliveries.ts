// What the SMSC delivers to us: delivery receipts, which settle the parts (and so the texts) they name, and
// inbound messages (MO) to numbers held on the platform, whose parts are held until the last arrives or the wait
// ends. Each is stored before the session acknowledges it (deliver_sm_resp), so nothing acknowledged is lost.
import type { Logger } from 'pino';
import type { Store, Tx } from '../../store/db.js';
import type { SmppPartRow } from '../../store/schema.js';
import { defineJob, type JobHandling } from '../../jobs/job.js';
import { enqueueJob } from '../../jobs/queue.js';
import { dateIn, nowIso } from '../../clock.js';
import type { CarrierReports } from '../carrier.js';
import { incomingNumber } from '../../numbers/store.js';
import { decodeShortMessage } from './encoding.js';
import { parseReceipt, type Receipt } from './receipts.js';
import type { DeliverSm } from './session.js';
import {
  dropInboundParts,
  holdParts,
  inboundParts,
  keepInboundPart,
  markReceipt,
  partBySmscId,
  partsOf,
  type InboundKey,
} from './store.js';

/** Settles a text by the receipts of its parts (see SmppCarrier). */
export type Settle = (tx: Tx, parts: SmppPartRow[]) => Promise<void>;

/** A receipt whose part is not recorded yet is looked up again once after this long, then dropped (logged). */
const UNKNOWN_RECEIPT_RECHECK_MS = 1000;

const INBOUND_TIMEOUT_JOB = defineJob<InboundKey>('smpp.inbound-timeout');

/** The number an SMPP address stands for: international digits get their '+', an alphanumeric sender stays. */
function e164Of(address: string): string {
  return /^\d+$/.test(address) ? `+${address}` : address;
}

/**
 * An MO's sender as the API gives it (the spec's MessageSender): international digits (7 to 15) with their '+', a
 * short code (3 to 6 digits) and an alphanumeric sender ID (up to 11 printable ASCII characters) as they are; null
 * for any other address (empty, too long, other characters), which the API cannot show.
 */
function senderOf(address: string): string | null {
  if (/^[1-9]\d{6,14}$/.test(address)) return `+${address}`;
  if (/^\d{3,6}$/.test(address)) return address;
  return /^[!-~]([ -~]{0,9}[!-~])?$/.test(address) && !/^\+?\d+$/.test(address) ? address : null;
}

export class SmppDeliveries {
  private concatTurn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly reports: CarrierReports,
    private readonly settle: (kind: SmppPartRow['kind']) => Settle,
    /** The parts being recorded right now (Submitter.recording). */
    private readonly recording: Map<string, Promise<unknown>>,
    private readonly concatTimeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** Resolves once `pdu` is stored (then the session acknowledges it); rejects to have the SMSC deliver it again. */
  async deliver(pdu: DeliverSm): Promise<void> {
    const receipt = parseReceipt(pdu);
    if (receipt) return this.receipt(receipt);
    if (pdu.esmClass & 0x3c) {
      this.logger.info({ esmClass: pdu.esmClass }, 'SMPP: dropped a deliver_sm that is neither a receipt nor an MO');
      return;
    }
    return this.inbound(pdu);
  }

  private async receipt(receipt: Receipt): Promise<void> {
    if (receipt.state === 'accepted' || receipt.state === 'enroute') return;
    await this.recording.get(receipt.messageId)?.catch(() => undefined);
    let part = await partBySmscId(this.store.db, receipt.messageId);
    if (!part) {
      // Accepted on another instance, whose record may not have committed yet.
      await new Promise((resolve) => setTimeout(resolve, UNKNOWN_RECEIPT_RECHECK_MS).unref());
      part = await partBySmscId(this.store.db, receipt.messageId);
    }
    if (!part) {
      this.logger.warn({ smscMessageId: receipt.messageId, state: receipt.state }, 'SMPP: receipt for no known part');
      return;
    }
    const found = part;
    await this.store.transaction(async (tx) => {
      if (found.parts > 1) await holdParts(tx, this.store.dialect, found.owner_sid);
      const errorCode = receipt.errorCode ?? null;
      await markReceipt(tx, found, receipt.state, errorCode);
      // A text of one part is that part: no need to read it again.
      const parts =
        found.parts === 1
          ? [{ ...found, state: receipt.state, error_code: errorCode }]
          : await partsOf(tx, { sid: found.owner_sid, kind: found.kind, parts: found.parts });
      await this.settle(found.kind)(tx, parts);
    });
  }

  private async inbound(pdu: DeliverSm): Promise<void> {
    const from = senderOf(pdu.sourceAddr);
    const to = e164Of(pdu.destinationAddr);
    if (from === null) {
      // Acknowledged and dropped, as one to a number nobody holds: refused, the SMSC would deliver it again forever.
      this.logger.info({ sourceAddr: pdu.sourceAddr, to }, 'SMPP: dropped an inbound message from an unusable sender');
      return;
    }
    const decoded = decodeShortMessage(pdu);
    // A NUL character (a UCS-2 U+0000, a 0x00 byte of IA5 or Latin-1) cannot be stored by PostgreSQL: dropped, so
    // that the message is stored and acknowledged rather than refused and delivered again forever.
    const text = decoded.text.replaceAll('\u0000', '');
    const { concat } = decoded;
    if (!(await incomingNumber(this.store.db, to))) {
      this.logger.info({ to }, 'SMPP: dropped an inbound message to a number nobody holds');
      return;
    }
    if (!concat) {
      await this.store.transaction((tx) =>
        this.reports.inboundMessage(tx, { from, to, body: text, mediaUrls: [], channel: 'sms' }),
      );
      return;
    }
    const key: InboundKey = { from, to, reference: concat.reference };
    // Parts of one message arriving together take turns here, so the one that completes it sees the others.
    const turn = this.concatTurn.then(() =>
      this.store.transaction(async (tx) => {
        const before = await inboundParts(tx, key);
        await keepInboundPart(tx, {
          from_number: from,
          to_number: to,
          reference: concat.reference,
          part_index: concat.index,
          parts: concat.total,
          body: text,
          date_received: nowIso(tx.clock),
        });
        const held = await inboundParts(tx, key);
        if (held.length >= concat.total) return complete(tx, this.reports, key, held);
        if (!before.length) {
          await enqueueJob(tx, INBOUND_TIMEOUT_JOB, key, { runAt: dateIn(tx.clock, this.concatTimeoutMs) });
        }
      }),
    );
    this.concatTurn = turn.catch(() => undefined);
    await turn;
  }

  /** The wait for the missing parts of a long inbound message ends: what came is delivered as it is. */
  static timeoutHandler(reports: CarrierReports): JobHandling {
    return INBOUND_TIMEOUT_JOB.handle(async (job, ctx) => {
      await ctx.store.transaction(async (tx) => {
        await complete(tx, reports, job.payload, await inboundParts(tx, job.payload));
        await ctx.finishIn(tx);
      });
    });
  }
}

/** Delivers the parts held as one message and forgets them. */
async function complete(tx: Tx, reports: CarrierReports, key: InboundKey, held: { body: string }[]): Promise<void> {
  if (!held.length) return;
  await dropInboundParts(tx, key);
  const body = held.map((p) => p.body).join('');
  await reports.inboundMessage(tx, { from: key.from, to: key.to, body, mediaUrls: [], channel: 'sms' });
}
