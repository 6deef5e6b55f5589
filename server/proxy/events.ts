// The webhooks of a proxy session, to its callback_url: `proxy.interaction.created` / `proxy.interaction.updated`
// (data: the interaction) and `proxy.session.closed` (data: the session), in order per session (the session's sid is
// the resource every one of its events is delivered in order under).
import type { Tx } from '../store/db.js';
import type { ProxyInteractionRow, ProxyParticipantRow, ProxySessionRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import { interactionView, sessionView } from './view.js';

export async function interactionEvent(
  webhooks: WebhookService,
  tx: Tx,
  session: Pick<ProxySessionRow, 'sid' | 'account_sid' | 'callback_url'>,
  interaction: ProxyInteractionRow,
  name: 'created' | 'updated',
): Promise<void> {
  if (!session.callback_url) return;
  await webhooks.enqueue(tx, {
    accountSid: session.account_sid,
    url: session.callback_url,
    type: `proxy.interaction.${name}`,
    resourceSid: session.sid,
    data: interactionView(interaction),
  });
}

/** `proxy.session.closed`, once, when the session closes or fails (its final row). */
export async function sessionClosedEvent(
  webhooks: WebhookService,
  tx: Tx,
  session: ProxySessionRow,
  participants: ProxyParticipantRow[],
): Promise<void> {
  if (!session.callback_url) return;
  await webhooks.enqueue(tx, {
    accountSid: session.account_sid,
    url: session.callback_url,
    type: 'proxy.session.closed',
    resourceSid: session.sid,
    data: sessionView(session, participants),
  });
}
