// A stored proxy session, participant or interaction as the API returns it (schemas ProxySession, ProxyInteraction).
import type { components } from '../../generated/openapi.js';
import type { ProxyInteractionRow, ProxyParticipantRow, ProxySessionRow } from '../store/schema.js';

export type ProxySessionRecord = components['schemas']['ProxySession'];
export type ProxyInteractionRecord = components['schemas']['ProxyInteraction'];

/** The session with its two participants (in the order they were given). */
export function sessionView(row: ProxySessionRow, participants: ProxyParticipantRow[]): ProxySessionRecord {
  return {
    sid: row.sid,
    account_sid: row.account_sid,
    unique_name: row.unique_name,
    status: row.status,
    mode: row.mode,
    ttl: Number(row.ttl),
    date_expiry: row.date_expiry,
    closed_reason: row.closed_reason,
    callback_url: row.callback_url,
    participants: [...participants]
      .sort((a, b) => a.position - b.position)
      .map((p) => ({
        sid: p.sid,
        identifier: p.identifier,
        proxy_identifier: p.proxy_identifier,
        friendly_name: p.friendly_name,
      })),
    date_created: row.date_created,
    date_updated: row.date_updated,
    date_ended: row.date_ended,
  };
}

export function interactionView(row: ProxyInteractionRow): ProxyInteractionRecord {
  return {
    sid: row.sid,
    session_sid: row.session_sid,
    type: row.type,
    from_participant_sid: row.from_participant_sid,
    to_participant_sid: row.to_participant_sid,
    body: row.body,
    media_url: JSON.parse(row.media_url) as string[],
    status: row.status,
    inbound_sid: row.inbound_sid,
    outbound_sid: row.outbound_sid,
    duration: row.duration === null ? null : Number(row.duration),
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}
