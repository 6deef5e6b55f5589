// SQL of the proxy tables (migration 013) that both sides of the feature share: the sessions' API and pool
// (sessions.ts) and the relay (relay.ts). Each side keeps its own statements beside it; these are the common ones.
import type { Db, Tx } from '../store/db.js';
import type { ProxyParticipantRow, ProxySessionRow } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

const selectSession = prepared((db, sid: string) => db.selectFrom('proxy_sessions').selectAll().where('sid', '=', sid));
const selectParticipants = prepared((db, sessionSid: string) =>
  db.selectFrom('proxy_participants').selectAll().where('session_sid', '=', sessionSid).orderBy('position'),
);
// Served by the partial unique index proxy_participants_open_pair (the predicate `open = 1` is what lets it).
const selectOpenPair = prepared((db, proxyIdentifier: string, identifier: string) =>
  db
    .selectFrom('proxy_participants')
    .selectAll()
    .where('proxy_identifier', '=', proxyIdentifier)
    .where('identifier', '=', identifier)
    .where('open', '=', 1),
);

export function sessionBySid(db: Conn, sid: string): Promise<ProxySessionRow | undefined> {
  return selectSession.first(db, sid);
}

/** The session's two participants, in the order they were given. */
export function participantsOf(db: Conn, sessionSid: string): Promise<ProxyParticipantRow[]> {
  return selectParticipants.all(db, sessionSid);
}

/** The participant of an open session whose number is `identifier` and who talks to `proxyIdentifier`, if any. */
export function openParticipant(
  db: Conn,
  identifier: string,
  proxyIdentifier: string,
): Promise<ProxyParticipantRow | undefined> {
  return selectOpenPair.first(db, proxyIdentifier, identifier);
}
