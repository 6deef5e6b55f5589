// SQL of the SMPP carrier's own tables (see migration 017_smpp): the parts handed to the SMSC and the parts of long
// inbound messages waiting for the rest.
import { sql } from 'kysely';
import type { Db, Dialect, Tx } from '../../store/db.js';
import type { SmppInboundPartRow, SmppPartRow } from '../../store/schema.js';
import { nowIso } from '../../clock.js';

type Owner = { sid: string; kind: SmppPartRow['kind']; parts: number };

/** The parts of `ownerSid`, in order. */
export function partsOf(tx: Tx, owner: Owner): Promise<SmppPartRow[]> {
  return tx.db.selectFrom('smpp_parts').selectAll().where('owner_sid', '=', owner.sid).orderBy('part_index').execute();
}

/**
 * Holds the parts of a text of several parts to the end of the transaction on PostgreSQL, so that the receipts of its
 * parts (and the acceptance of its last) settle it one after another, each seeing the others' marks. SQLite has one
 * writer at a time.
 */
export async function holdParts(tx: Tx, dialect: Dialect, sid: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await tx.db
    .selectFrom('smpp_parts')
    .select('part_index')
    .where('owner_sid', '=', sid)
    .orderBy('part_index')
    .forUpdate()
    .execute();
}

/**
 * The parts of `ownerSid`, made when it has none yet (`created`): pending, the first counted as submitted once, as
 * the caller submits it next (one write fewer per message).
 */
export async function openParts(tx: Tx, owner: Owner): Promise<{ rows: SmppPartRow[]; created: boolean }> {
  const existing = await partsOf(tx, owner);
  if (existing.length) return { rows: existing, created: false };
  return { rows: await makeParts(tx, owner), created: true };
}

/** Makes the parts of a text about to be submitted, the first counted as submitted once (see openParts). */
export async function makeParts(tx: Tx, owner: Owner): Promise<SmppPartRow[]> {
  const now = nowIso(tx.clock);
  const rows: SmppPartRow[] = Array.from({ length: owner.parts }, (_, i) => ({
    owner_sid: owner.sid,
    part_index: i,
    parts: owner.parts,
    kind: owner.kind,
    smsc_message_id: null,
    attempts: i === 0 ? 1 : 0,
    resubmitted: 0,
    state: 'pending',
    error_code: null,
    date_updated: now,
  }));
  await tx.db.insertInto('smpp_parts').values(rows).execute();
  return rows;
}

/** Counts a submission of the part about to go out (`resubmitted` once it is the second). */
export async function countSubmission(tx: Tx, sid: string, index: number, attempts: number): Promise<void> {
  await tx.db
    .updateTable('smpp_parts')
    .set({ attempts, resubmitted: attempts > 1 ? 1 : 0, date_updated: nowIso(tx.clock) })
    .where('owner_sid', '=', sid)
    .where('part_index', '=', index)
    .execute();
}

export async function markAccepted(tx: Tx, sid: string, index: number, smscMessageId: string): Promise<void> {
  await tx.db
    .updateTable('smpp_parts')
    .set({ smsc_message_id: smscMessageId, state: 'accepted', date_updated: nowIso(tx.clock) })
    .where('owner_sid', '=', sid)
    .where('part_index', '=', index)
    .execute();
}

export function partBySmscId(db: Db | Tx['db'], smscMessageId: string): Promise<SmppPartRow | undefined> {
  // SMSCs reuse message ids (a counter that starts over when the SMSC restarts): the part still waiting for its
  // receipt is the one meant, else the newest.
  return db
    .selectFrom('smpp_parts')
    .selectAll()
    .where('smsc_message_id', '=', smscMessageId)
    .orderBy(sql`case when state = 'accepted' then 0 else 1 end`)
    .orderBy('date_updated', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Records what a receipt said of the part. */
export async function markReceipt(tx: Tx, part: SmppPartRow, state: string, errorCode: string | null) {
  await tx.db
    .updateTable('smpp_parts')
    .set({ state, error_code: errorCode, date_updated: nowIso(tx.clock) })
    .where('owner_sid', '=', part.owner_sid)
    .where('part_index', '=', part.part_index)
    .execute();
}

/** Keeps a part of a long inbound message (a repeat of one already kept changes nothing). */
export async function keepInboundPart(tx: Tx, row: SmppInboundPartRow): Promise<void> {
  await tx.db
    .insertInto('smpp_inbound_parts')
    .values(row)
    .onConflict((oc) => oc.columns(['from_number', 'to_number', 'reference', 'part_index']).doNothing())
    .execute();
}

export interface InboundKey {
  from: string;
  to: string;
  reference: number;
}

/** The parts of one long inbound message kept so far, in order. */
export function inboundParts(tx: Tx, key: InboundKey): Promise<SmppInboundPartRow[]> {
  return tx.db
    .selectFrom('smpp_inbound_parts')
    .selectAll()
    .where('from_number', '=', key.from)
    .where('to_number', '=', key.to)
    .where('reference', '=', key.reference)
    .orderBy('part_index')
    .execute();
}

export async function dropInboundParts(tx: Tx, key: InboundKey): Promise<void> {
  await tx.db
    .deleteFrom('smpp_inbound_parts')
    .where('from_number', '=', key.from)
    .where('to_number', '=', key.to)
    .where('reference', '=', key.reference)
    .execute();
}
