// SQL of the sandbox network's own tables: each sender's next send slot, and the last code each handset received
// (sealed, and only while its verification is pending).
import type { Db, Dialect, Tx } from '../store/db.js';
import type { SandboxOtpDeliveryRow } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';

const addSlotRow = prepared((db, from: string) =>
  db
    .insertInto('carrier_send_slots')
    .values({ from_number: from, next_at: '' })
    .onConflict((oc) => oc.column('from_number').doNothing()),
);
const slotOf = prepared((db, from: string) =>
  db.selectFrom('carrier_send_slots').select('next_at').where('from_number', '=', from),
);
const slotForUpdate = prepared((db, from: string) =>
  db.selectFrom('carrier_send_slots').select('next_at').where('from_number', '=', from).forUpdate(),
);
const moveSlot = prepared((db, from: string, nextAt: string) =>
  db.updateTable('carrier_send_slots').set({ next_at: nextAt }).where('from_number', '=', from),
);

/** The sender's next free send slot ('' when it never sent), its row made if need be and held to the end of the
 * transaction. */
export async function holdSendSlot(tx: Tx, dialect: Dialect, from: string): Promise<string> {
  await addSlotRow.run(tx.db, from);
  // SQLite has one writer at a time; PostgreSQL locks the row against concurrent reservations.
  const row = await (dialect === 'postgres' ? slotForUpdate : slotOf).first(tx.db, from);
  if (!row) throw new Error(`no send slot row for ${from}`);
  return row.next_at;
}

export async function moveSendSlot(tx: Tx, from: string, nextAt: string): Promise<void> {
  await moveSlot.run(tx.db, from, nextAt);
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
