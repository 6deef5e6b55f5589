// SQL of the proxy tables (migration 013) that both sides of the feature share: the sessions' API and pool
// (sessions.ts) and the relay (relay.ts). Each side keeps its own statements beside it; these are the common ones.
import { sql } from 'kysely';
import type { Db, Tx } from '../store/db.js';
import type { ProxyInteractionRow, ProxyParticipantRow, ProxySessionRow } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

const selectSession = prepared((db, sid: string) => db.selectFrom('proxy_sessions').selectAll().where('sid', '=', sid));
const selectParticipants = prepared((db, sessionSid: string) =>
  db.selectFrom('proxy_participants').selectAll().where('session_sid', '=', sessionSid).orderBy('position'),
);
export function sessionBySid(db: Conn, sid: string): Promise<ProxySessionRow | undefined> {
  return selectSession.first(db, sid);
}

/** The session's two participants, in the order they were given. */
export function participantsOf(db: Conn, sessionSid: string): Promise<ProxyParticipantRow[]> {
  return selectParticipants.all(db, sessionSid);
}

const insertInteractionRow = prepared((db, row: ProxyInteractionRow) =>
  db.insertInto('proxy_interactions').values(row),
);
const selectByOutbound = prepared((db, outboundSid: string) =>
  db.selectFrom('proxy_interactions').selectAll().where('outbound_sid', '=', outboundSid),
);

/** Records a relayed message or call (the relay's, in the transaction that relays it). */
export async function insertInteraction(db: Conn, row: ProxyInteractionRow): Promise<void> {
  await insertInteractionRow.run(db, row);
}

/** The interaction whose relayed message or bridged leg is `outboundSid`, if any. */
export function interactionByOutbound(db: Conn, outboundSid: string): Promise<ProxyInteractionRow | undefined> {
  return selectByOutbound.first(db, outboundSid);
}

/** Changes an interaction (status, duration, outbound sid); its new row. */
export function updateInteraction(
  db: Conn,
  sid: string,
  changes: Partial<Pick<ProxyInteractionRow, 'status' | 'duration' | 'outbound_sid' | 'date_updated'>>,
): Promise<ProxyInteractionRow | undefined> {
  return db.updateTable('proxy_interactions').set(changes).where('sid', '=', sid).returningAll().executeTakeFirst();
}

// Compiled once: every relayed message and bridged call runs it.
// The expiry only moves on (a relay that waited for the row behind a later one keeps the later expiry), and a session
// whose expiry has passed is not revived even when its expiry job has not run yet.
const touch = prepared((db, sid: string, expiry: string, at: string) =>
  db
    .updateTable('proxy_sessions')
    .set({
      status: 'in-progress',
      date_expiry: sql<string>`case when date_expiry > ${expiry} then date_expiry else ${expiry} end`,
      date_updated: at,
    })
    .where('sid', '=', sid)
    .where('date_ended', 'is', null)
    .where('date_expiry', '>', at),
);

/**
 * An interaction happened at `at` (ISO): an open session becomes `in-progress`, and its expiry slides to `ttl`
 * seconds after it. Nothing for a session that has ended, or whose expiry is past (it is closing): false then. Not
 * its new row: what the relays tell of the session (sid, account, callback_url) the touch does not change.
 */
export async function touchSession(db: Conn, session: Pick<ProxySessionRow, 'sid' | 'ttl'>, at: string) {
  const expiry = new Date(Date.parse(at) + Number(session.ttl) * 1000).toISOString();
  return (await touch.run(db, session.sid, expiry, at)) > 0;
}

const selectInteraction = prepared((db, sid: string) =>
  db.selectFrom('proxy_interactions').selectAll().where('sid', '=', sid),
);

export function interactionBySid(db: Conn, sid: string): Promise<ProxyInteractionRow | undefined> {
  return selectInteraction.first(db, sid);
}

/**
 * A participant of an open session writing or calling their proxy number, with the session and the other side: only
 * the columns the relays use (a hit read the three rows whole, 28 columns made into objects at every relay), the
 * session's callback_url included, so the relay's event needs no row of the session back from its touch.
 */
export interface Route {
  from: Pick<ProxyParticipantRow, 'sid'>;
  session: Pick<ProxySessionRow, 'sid' | 'account_sid' | 'mode' | 'ttl' | 'callback_url'>;
  to: Pick<ProxyParticipantRow, 'sid' | 'identifier' | 'proxy_identifier'>;
}

/**
 * `open = 1` written into the SQL, not bound: to use the partial index with a bound `1`, SQLite plans on the bound
 * value and plans the statement again whenever it is bound anew, at every run (test/proxy/plans.test.ts).
 */
export const OPEN = sql.lit(1);

// The participant on the partial unique index proxy_participants_open_pair, then its session and the session's
// other participant by their keys: one statement for the lookup every inbound message and call to a number makes,
// which finds nothing unless it comes from a participant.
export const routeQuery = (db: Db, proxyIdentifier: string, identifier: string, accountSid: string) =>
  db
    .selectFrom('proxy_participants as f')
    .innerJoin('proxy_sessions as s', 's.sid', 'f.session_sid')
    .innerJoin('proxy_participants as t', (join) =>
      join.onRef('t.session_sid', '=', 'f.session_sid').onRef('t.sid', '<>', 'f.sid'),
    )
    .select([
      'f.sid as from_sid',
      's.sid as session_sid',
      's.account_sid',
      's.mode',
      's.ttl',
      's.callback_url',
      't.sid as to_sid',
      't.identifier as to_identifier',
      't.proxy_identifier as to_proxy_identifier',
    ])
    .where('f.proxy_identifier', '=', proxyIdentifier)
    .where('f.identifier', '=', identifier)
    .where('f.open', '=', OPEN)
    .where('f.account_sid', '=', accountSid);
const selectRoute = prepared(routeQuery);

/**
 * The route of traffic from `identifier` to `proxyIdentifier`, a number of `accountSid`: the participant it comes
 * from, its open session and the participant it goes to; undefined when it is no participant's (both relays ask).
 */
export async function routeOf(
  db: Conn,
  identifier: string,
  proxyIdentifier: string,
  accountSid: string,
): Promise<Route | undefined> {
  const row = await selectRoute.first(db, proxyIdentifier, identifier, accountSid);
  if (!row) return undefined;
  return {
    from: { sid: row.from_sid },
    session: {
      sid: row.session_sid,
      account_sid: row.account_sid,
      mode: row.mode,
      ttl: row.ttl,
      callback_url: row.callback_url,
    },
    to: { sid: row.to_sid, identifier: row.to_identifier, proxy_identifier: row.to_proxy_identifier },
  };
}
