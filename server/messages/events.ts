// What happens around a message's changes, inside the transaction that makes them: its status callback, the
// inbound webhook to the receiving number, and in-process listeners of other features (verification, proxy).
import type { Tx } from '../store/db.js';
import type { MessageRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import { messageView } from './view.js';

export type MessageListener = (tx: Tx, message: MessageRow) => Promise<void>;

/**
 * Takes an inbound message in place of the receiving number's sms_url (a proxy session relays it): true when it
 * did, and the message then gets no `message.received` webhook (so no automatic reply either).
 */
export type InboundRelay = (tx: Tx, message: MessageRow) => Promise<boolean>;

export const REPLY_HANDLER = 'message.reply';

/** What the inbound webhook's response handler needs to send a reply. */
export interface ReplyContext {
  accountSid: string;
  /** The receiving number, which sends the reply. */
  from: string;
  /** The original sender. */
  to: string;
  inboundSid: string;
}

export class MessageEvents {
  private readonly statusListeners: MessageListener[] = [];
  private readonly inboundListeners: MessageListener[] = [];
  private relay: InboundRelay | null = null;

  constructor(private readonly webhooks: WebhookService) {}

  onStatusChange(listener: MessageListener): void {
    this.statusListeners.push(listener);
  }

  onInbound(listener: MessageListener): void {
    this.inboundListeners.push(listener);
  }

  /** The one feature that may take inbound messages away from their number's sms_url (proxy sessions). */
  relayInbound(relay: InboundRelay): void {
    this.relay = relay;
  }

  /** A status change of an outbound message: `message.<status>` to its status_callback, then the listeners. */
  async statusChanged(tx: Tx, row: MessageRow): Promise<void> {
    if (row.status_callback) {
      await this.webhooks.enqueue(tx, {
        accountSid: row.account_sid,
        url: row.status_callback,
        type: `message.${row.status}`,
        resourceSid: row.sid,
        data: messageView(row),
      });
    }
    for (const listener of this.statusListeners) await listener(tx, row);
  }

  /**
   * A message received by a number of the platform: relayed (proxy), else `message.received` to its sms_url; then
   * the listeners. `original` is false for a message that is itself a reply or a relay sent from this platform: it
   * is neither relayed nor answered automatically, so two auto-responders, or two proxy sessions whose participants
   * are each other's proxy numbers, cannot loop.
   */
  async received(tx: Tx, row: MessageRow, smsUrl: string | null, original: boolean): Promise<void> {
    const relayed = original && this.relay !== null && (await this.relay(tx, row));
    if (smsUrl && !relayed) {
      const context: ReplyContext = {
        accountSid: row.account_sid,
        from: row.to_number,
        to: row.from_number,
        inboundSid: row.sid,
      };
      await this.webhooks.enqueue(tx, {
        accountSid: row.account_sid,
        url: smsUrl,
        type: 'message.received',
        resourceSid: row.sid,
        data: messageView(row),
        onResponse: original ? { handler: REPLY_HANDLER, context } : undefined,
      });
    }
    for (const listener of this.inboundListeners) await listener(tx, row);
  }
}
