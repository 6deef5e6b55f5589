// The message relay of proxy sessions. A participant's message to their proxy number goes on to the other participant,
// from that participant's proxy number, in the transaction that stores the inbound message (a crash leaves both or
// neither), and becomes an interaction whose status follows the relayed message.
//
// A relayed message is an `outbound-reply` message whose origin is the participant's inbound message: like a
// webhook's reply it answers traffic the account does not control, and a platform number that receives one neither
// answers nor relays it again (MessageEvents.received), so sessions whose participants are each other's proxy
// numbers cannot loop. Unlike a reply it is refused when the account's queue is full (it sends to a third party):
// the interaction is then `failed` with no outbound message, and the inbound message is stored all the same.
import type { Tx } from '../store/db.js';
import type { MessageRow, ProxyInteractionRow, ProxySessionRow } from '../store/schema.js';
import type { MessageService } from '../messages/service.js';
import type { WebhookService } from '../webhooks/service.js';
import { ApiError } from '../errors.js';
import { nowIso } from '../clock.js';
import { newSid } from '../ids.js';
import { interactionEvent } from './events.js';
import {
  insertInteraction,
  interactionByOutbound,
  routeOf,
  type Route,
  sessionBySid,
  touchSession,
  updateInteraction,
} from './store.js';

const RELAYS_MESSAGES: readonly ProxySessionRow['mode'][] = ['message-only', 'voice-and-message'];

/**
 * What a relayed message's status makes of its interaction; other statuses change nothing. The sandbox reports
 * delivery; a carrier that reports none would end its relays at `sent` (the Carrier port does not say so yet).
 */
const INTERACTION_STATUS: Partial<Record<MessageRow['status'], 'completed' | 'failed'>> = {
  delivered: 'completed',
  failed: 'failed',
  undelivered: 'failed',
  canceled: 'failed',
};

/** Hooks the relay into the messages service: inbound messages of participants, status changes of relays. */
export function relayProxyMessages(messages: MessageService, webhooks: WebhookService): void {
  const relay = new MessageRelay(messages, webhooks);
  messages.relayInbound((tx, message) => relay.relay(tx, message));
  messages.onStatusChange((tx, message) => relay.follow(tx, message));
}

class MessageRelay {
  constructor(
    private readonly messages: MessageService,
    private readonly webhooks: WebhookService,
  ) {}

  /** Relays `inbound` when it comes from a participant of an open session on its number that relays messages. */
  async relay(tx: Tx, inbound: MessageRow): Promise<boolean> {
    const route = await routeOf(tx.db, inbound.from_number, inbound.to_number, inbound.account_sid);
    if (!route || !RELAYS_MESSAGES.includes(route.session.mode)) return false;
    const { from, session, to } = route;
    const now = nowIso(tx.clock);
    // Before the send, and conditional on the session not having ended: on PostgreSQL its row lock orders this relay
    // with a concurrent end, so nothing is relayed for a session that ended first.
    if (!(await touchSession(tx.db, session, now))) return false;
    const outboundSid = await this.send(tx, inbound, to);
    const interaction: ProxyInteractionRow = {
      sid: newSid('proxyInteraction', tx.clock.now()),
      session_sid: session.sid,
      account_sid: session.account_sid,
      type: 'message',
      from_participant_sid: from.sid,
      to_participant_sid: to.sid,
      body: inbound.body,
      media_url: inbound.media_url,
      status: outboundSid ? 'in-progress' : 'failed',
      inbound_sid: inbound.sid,
      outbound_sid: outboundSid,
      duration: null,
      date_created: now,
      date_updated: now,
    };
    await insertInteraction(tx.db, interaction);
    await interactionEvent(this.webhooks, tx, session, interaction, 'created');
    return true;
  }

  /**
   * Sends the relayed message (the messages module's checks, quota, channel, segments and hand-over); its sid, or
   * null when the messages module refuses it, which leaves nothing of it written (see refuseWhenQueueFull).
   */
  private async send(tx: Tx, inbound: MessageRow, to: Route['to']): Promise<string | null> {
    try {
      const sent = await this.messages.sendMessage(
        inbound.account_sid,
        {
          from: to.proxy_identifier,
          to: to.identifier,
          body: inbound.body,
          media_url: JSON.parse(inbound.media_url) as string[],
        },
        // The proxy number is the account's: releasing a number fails its sessions in the release's transaction,
        // so no open participant talks to a number the account no longer holds.
        {
          tx,
          direction: 'outbound-reply',
          originSid: inbound.sid,
          refuseWhenQueueFull: true,
          trustedFrom: true,
          dispatchNow: true,
        },
      );
      return sent.sid;
    } catch (err) {
      if (err instanceof ApiError) return null;
      throw err;
    }
  }

  /** A relayed message reached a final status: its interaction completes or fails, with an event. */
  async follow(tx: Tx, message: MessageRow): Promise<void> {
    const status = message.direction === 'outbound-reply' ? INTERACTION_STATUS[message.status] : undefined;
    if (!status) return;
    const interaction = await interactionByOutbound(tx.db, message.sid);
    if (interaction?.status !== 'in-progress') return;
    const updated = await updateInteraction(tx.db, interaction.sid, { status, date_updated: nowIso(tx.clock) });
    const session = await sessionBySid(tx.db, interaction.session_sid);
    if (updated && session) await interactionEvent(this.webhooks, tx, session, updated, 'updated');
  }
}
