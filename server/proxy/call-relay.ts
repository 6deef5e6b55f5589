// The call relay of proxy sessions (issue 22, point 4). A participant of an open session calling their proxy number
// is bridged to the other participant: the inbound leg runs `<Dial callerId="{other's proxy number}">{other's
// number}</Dial>` instead of the number's voice_url, so the other side sees the call come from their own proxy
// number. The call is an interaction of the session (named after the inbound leg, see `sidFor`) that follows the
// Dial's child leg: `in-progress`, then `completed` with the child's duration when it was answered, `failed` when it
// was not (busy, no answer, failed, canceled). A message-only session rejects the call (`<Reject/>`); like Twilio,
// it is still recorded, as a `failed` interaction with nothing sent. Every change of an interaction is a webhook to
// the session's callback_url (in order); its creation and its end are activity: the session's expiry slides.
import type { Tx } from '../store/db.js';
import type { CallRow, ProxyInteractionRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import type { LegHooks } from '../calls/engine/leg-hooks.js';
import { sidFor } from '../ids.js';
import { callBySid } from '../calls/engine/store.js';
import { nowIso } from '../clock.js';
import { interactionEvent } from './events.js';
import {
  insertInteraction,
  interactionByOutbound,
  interactionBySid,
  routeOf,
  type Route,
  sessionBySid,
  touchSession,
  updateInteraction,
} from './store.js';

const REJECT = '<Response><Reject/></Response>';

/** The bridge to `other` (E.164 numbers both, checked when the session was made: nothing to escape). */
function dialTo(other: Route['to']): string {
  return `<Response><Dial callerId="${other.proxy_identifier}">${other.identifier}</Dial></Response>`;
}

type Change = Parameters<typeof updateInteraction>[2];

export class ProxyCallRelay implements LegHooks {
  constructor(private readonly webhooks: WebhookService) {}

  /** A call from a participant to their proxy number is the session's: a bridge, or a rejection (message-only). */
  async inbound(tx: Tx, leg: CallRow): Promise<CallRow> {
    const route = await routeOf(tx.db, leg.from_number, leg.to_number, leg.account_sid);
    if (!route || (await this.isBridge(tx, leg))) return leg;
    const { from: caller, session, to: other } = route;
    // First, and only while the session has not ended: on PostgreSQL its row lock orders this call with a concurrent
    // end, so a session that ended first bridges nothing (the call runs voice_url).
    if (!(await touchSession(tx.db, session, leg.date_created))) return leg;
    const bridged = session.mode !== 'message-only';
    const interaction: ProxyInteractionRow = {
      sid: sidFor('proxyInteraction', leg.sid),
      session_sid: session.sid,
      account_sid: session.account_sid,
      type: 'call',
      from_participant_sid: caller.sid,
      to_participant_sid: other.sid,
      body: null,
      media_url: '[]',
      status: bridged ? 'in-progress' : 'failed',
      inbound_sid: leg.sid,
      outbound_sid: null,
      duration: null,
      date_created: leg.date_created,
      date_updated: leg.date_created,
    };
    await insertInteraction(tx.db, interaction);
    await interactionEvent(this.webhooks, tx, session, interaction, 'created');
    return { ...leg, url: null, method: null, twiml: bridged ? dialTo(other) : REJECT };
  }

  /**
   * Whether the leg is itself a proxy bridge arriving at a platform number (its calling leg a Dial leg of a bridged
   * call): it is not bridged again, as a relayed message is not relayed again, so two sessions whose participants are
   * each other's proxy numbers cannot chain calls forever. It runs the number's voice_url.
   */
  private async isBridge(tx: Tx, leg: CallRow): Promise<boolean> {
    const calling = leg.peer_sid ? await callBySid(tx.db, leg.peer_sid) : undefined;
    if (calling?.direction !== 'outbound-dial' || !calling.parent_call_sid) return false;
    return (await interactionBySid(tx.db, sidFor('proxyInteraction', calling.parent_call_sid))) !== undefined;
  }

  /** The bridge's leg is placed: the interaction's outbound leg (the first Dial of the call only). */
  async dialed(tx: Tx, parent: CallRow, child: CallRow): Promise<void> {
    if (parent.direction !== 'inbound') return;
    const interaction = await interactionBySid(tx.db, sidFor('proxyInteraction', parent.sid));
    if (interaction?.status !== 'in-progress' || interaction.outbound_sid !== null) return;
    await this.change(tx, interaction, { outbound_sid: child.sid }, false);
  }

  /**
   * The bridge's leg ended: its outcome is the interaction's. The inbound leg ending before any bridge was placed
   * (the caller hung up first) fails it.
   */
  async ended(tx: Tx, leg: CallRow): Promise<void> {
    if (leg.direction === 'outbound-dial') {
      const interaction = await interactionByOutbound(tx.db, leg.sid);
      if (interaction?.status !== 'in-progress') return;
      const status = leg.status === 'completed' ? 'completed' : 'failed';
      await this.change(tx, interaction, { status, duration: leg.duration }, true);
    } else if (leg.direction === 'inbound') {
      const interaction = await interactionBySid(tx.db, sidFor('proxyInteraction', leg.sid));
      if (interaction?.status !== 'in-progress' || interaction.outbound_sid !== null) return;
      await this.change(tx, interaction, { status: 'failed' }, true);
    }
  }

  /** Applies `change` and tells the session's callback_url; an ending also slides the session's expiry. */
  private async change(tx: Tx, interaction: ProxyInteractionRow, change: Change, ends: boolean): Promise<void> {
    const at = nowIso(tx.clock);
    const updated = await updateInteraction(tx.db, interaction.sid, { ...change, date_updated: at });
    const session = await sessionBySid(tx.db, interaction.session_sid);
    if (!updated || !session) return;
    if (ends) await touchSession(tx.db, session, at);
    await interactionEvent(this.webhooks, tx, session, updated, 'updated');
  }
}
