// SQL for the call engine: call legs changed only from the statuses a change applies to (and, for the machine's
// state, only at the step it was read at), so two jobs of one call can never both apply, and recordings.
import type { Updateable } from 'kysely';
import type { Db, Tx } from '../../store/db.js';
import type { CallRow, CallStatus, RecordingRow } from '../../store/schema.js';

type Conn = Db | Tx['db'];

export const LIVE_STATUSES: readonly CallStatus[] = ['queued', 'ringing', 'in-progress'];

export function isLive(row: Pick<CallRow, 'status'>): boolean {
  return LIVE_STATUSES.includes(row.status);
}

export function callBySid(db: Conn, sid: string): Promise<CallRow | undefined> {
  return db.selectFrom('calls').selectAll().where('sid', '=', sid).executeTakeFirst();
}

export async function insertCall(db: Conn, row: CallRow): Promise<void> {
  await db.insertInto('calls').values(row).execute();
}

/** Applies `change` (and bumps the step) if the leg is still in one of `from`; the row after it, or undefined. */
export function changeCall(
  db: Conn,
  sid: string,
  from: readonly CallStatus[],
  change: Updateable<CallRow>,
): Promise<CallRow | undefined> {
  return db
    .updateTable('calls')
    .set((eb) => ({ ...change, step: eb('step', '+', 1) }))
    .where('sid', '=', sid)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Stores the machine's new state if nothing else moved the call since `step` was read. */
export function saveMachine(
  db: Conn,
  sid: string,
  step: number,
  machine: string,
  now: string,
): Promise<CallRow | undefined> {
  return db
    .updateTable('calls')
    .set({ machine, step: step + 1, date_updated: now })
    .where('sid', '=', sid)
    .where('step', '=', step)
    .where('status', '=', 'in-progress')
    .returningAll()
    .executeTakeFirst();
}

/** The legs a `<Dial>` of this call placed that have not ended. */
export function liveChildren(db: Conn, parentSid: string): Promise<CallRow[]> {
  return db
    .selectFrom('calls')
    .selectAll()
    .where('parent_call_sid', '=', parentSid)
    .where('status', 'in', LIVE_STATUSES)
    .execute();
}

export async function insertRecording(db: Conn, row: RecordingRow): Promise<void> {
  await db.insertInto('recordings').values(row).execute();
}

export function recordingBySid(db: Conn, sid: string): Promise<RecordingRow | undefined> {
  return db.selectFrom('recordings').selectAll().where('sid', '=', sid).executeTakeFirst();
}

/** Ends a `processing` recording; the row after it (without its audio), or undefined when it had ended already. */
export function finishRecording(db: Conn, sid: string, change: Updateable<RecordingRow>) {
  return db
    .updateTable('recordings')
    .set(change)
    .where('sid', '=', sid)
    .where('status', '=', 'processing')
    .returning([
      'sid',
      'account_sid',
      'call_sid',
      'source',
      'status',
      'channels',
      'duration',
      'start_time',
      'price',
      'price_unit',
      'error_code',
      'status_callback',
      'date_created',
      'date_updated',
    ])
    .executeTakeFirst();
}

/** Where a leg on this platform is answered: the holder of `phoneNumber` and its voice settings. */
export function voiceNumber(db: Conn, phoneNumber: string) {
  return db
    .selectFrom('incoming_numbers')
    .select(['account_sid', 'voice_url', 'voice_method', 'status_callback'])
    .where('phone_number', '=', phoneNumber)
    .executeTakeFirst();
}
