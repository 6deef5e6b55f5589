// SQL of the sandbox network's own tables: each sender's next send slot, and the last code each handset received
// (sealed, and only while its verification is pending).
import type { Db, Dialect, Tx } from '../store/db.js';
import type { SandboxOtpDeliveryRow } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';

// SQLite: the slot taken now when the sender's row is free by then (or new), in one statement; no change when it is
// not. Without `returning`, which costs SQLite more than its count of changes.
const takeSlotNow = prepared((db, from: string, now: string, nextAt: string) =>
  db
    .insertInto('carrier_send_slots')
    .values({ from_number: from, next_at: nextAt })
    .onConflict((oc) =>
      oc
        .column('from_number')
        .doUpdateSet({ next_at: (eb) => eb.ref('excluded.next_at') })
        .where('carrier_send_slots.next_at', '<=', now),
    ),
);
const slotOf = prepared((db, from: string) =>
  db.selectFrom('carrier_send_slots').select('next_at').where('from_number', '=', from),
);
const takeSlot = prepared((db, from: string, now: string, notAfter: string, intervalMs: number) =>
  db.selectNoFrom((eb) =>
    eb
      .fn<string | null>('carrier_send_slot_take', [eb.val(from), eb.val(now), eb.val(notAfter), eb.val(intervalMs)])
      .as('slot'),
  ),
);
const moveSlot = prepared((db, from: string, nextAt: string) =>
  db.updateTable('carrier_send_slots').set({ next_at: nextAt }).where('from_number', '=', from),
);

/**
 * Takes the sender's next send slot, `intervalMs` apart from the one before: the later of now and the slot's row's
 * next free moment, or null (nothing taken) when that is after `notAfter`. The row is made if need be and held to the
 * end of the transaction. (On PostgreSQL the dispatch takes it with its update to `sending` instead, by the same
 * function: messages/store.ts, takeSlotAndSend.)
 */
export async function takeSendSlot(tx: Tx, dialect: Dialect, from: string, notAfter: Date, intervalMs: number) {
  const now = tx.clock.now();
  const nowIso = new Date(now).toISOString();
  // PostgreSQL: one round trip (migration 028) instead of the statements below, which lock the row against
  // concurrent reservations with `for update`. SQLite has one writer at a time and no round trips.
  if (dialect === 'postgres') {
    const row = await takeSlot.first(tx.db, from, nowIso, notAfter.toISOString(), intervalMs);
    return row?.slot ? new Date(row.slot) : null;
  }
  if (now > notAfter.getTime()) return null;
  // Free now (its next moment, an ISO time like `now`, not after it; or no row yet): one statement, the usual case
  // of a relay. Else the slot's row is read and moved, as a dispatch that has to wait does.
  const nextAt = (at: number) => new Date(at + intervalMs).toISOString();
  if ((await takeSlotNow.run(tx.db, from, nowIso, nextAt(now))) > 0) return new Date(now);
  const row = await slotOf.first(tx.db, from);
  if (!row) throw new Error(`no send slot row for ${from}`);
  const slot = Date.parse(row.next_at);
  if (slot > notAfter.getTime()) return null;
  await moveSlot.run(tx.db, from, nextAt(slot));
  return new Date(slot);
}

/** Keeps the code as the last one the handset at (account, number) received. */
export async function keepDeliveredCode(tx: Tx, row: SandboxOtpDeliveryRow): Promise<void> {
  await upsertDelivered.run(tx.db, row);
}

const upsertDelivered = prepared((db, row: SandboxOtpDeliveryRow) =>
  db
    .insertInto('sandbox_otp_deliveries')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['account_sid', 'to_number']).doUpdateSet({
        verification_sid: row.verification_sid,
        channel: row.channel,
        sealed: row.sealed,
        date_sent: row.date_sent,
      }),
    ),
);

export function deliveredCode(db: Db, accountSid: string, to: string): Promise<SandboxOtpDeliveryRow | undefined> {
  return db
    .selectFrom('sandbox_otp_deliveries')
    .selectAll()
    .where('account_sid', '=', accountSid)
    .where('to_number', '=', to)
    .executeTakeFirst();
}

/** Forgets the handset's code of this verification (a later verification's code to the number stays). */
export async function forgetDeliveredCode(
  tx: Tx,
  of: { accountSid: string; to: string; verificationSid: string },
): Promise<void> {
  await tx.db
    .deleteFrom('sandbox_otp_deliveries')
    .where('account_sid', '=', of.accountSid)
    .where('to_number', '=', of.to)
    .where('verification_sid', '=', of.verificationSid)
    .execute();
}
