// A session's end, whatever ends it (the API, its expiry, the release of one of its proxy numbers): its pairs are
// freed at once and `proxy.session.closed` goes out, both in the transaction of the change that ended it. Only the
// transaction whose update ended the session gets here (each ending updates `where date_ended is null`), so the
// event is sent once even when two endings race on several instances.
import type { Tx } from '../store/db.js';
import type { ProxySessionRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import { sessionClosedEvent } from './events.js';
import { freeParticipants } from './session-store.js';

/** What follows the update that ended `ended` (its final row). */
export async function sessionEnded(webhooks: WebhookService, tx: Tx, ended: ProxySessionRow): Promise<void> {
  const participants = await freeParticipants(tx.db, ended.sid);
  await sessionClosedEvent(webhooks, tx, ended, participants);
}
