// SQL for the call engine: call legs changed only from the statuses a change applies to (and, for the machine's
// state, only at the step it was read at), so two jobs of one call can never both apply, and recordings.
// Each statement is compiled once (see store/sqlite/prepared.ts): a call's lifecycle runs a dozen of them.
import type { Updateable } from 'kysely';
import type { Db, Tx } from '../../store/db.js';
import type { CallRow, CallStatus, RecordingRow } from '../../store/schema.js';
import { prepared } from '../../store/sqlite/prepared.js';
import { RECORDING_META_COLUMNS } from '../store/recordings.js';

type Conn = Db | Tx['db'];

export const LIVE_STATUSES: readonly CallStatus[] = ['queued', 'ringing', 'in-progress'];

export function isLive(row: Pick<CallRow, 'status'>): boolean {
  return LIVE_STATUSES.includes(row.status);
}

const selectCall = prepared((db, sid: string) => db.selectFrom('calls').selectAll().where('sid', '=', sid));
const insertCallRow = prepared((db, row: CallRow) => db.insertInto('calls').values(row));
const updateCallIn = prepared((db, sid: string, from: readonly CallStatus[], change: Updateable<CallRow>) =>
  db
    .updateTable('calls')
    .set((eb) => ({ ...change, step: eb('step', '+', 1) }))
    .where('sid', '=', sid)
    .where('status', 'in', from)
    .returningAll(),
);
const updateMachine = prepared((db, sid: string, step: number, next: number, machine: string, now: string) =>
  db
    .updateTable('calls')
    .set({ machine, step: next, date_updated: now })
    .where('sid', '=', sid)
    .where('step', '=', step)
    .where('status', '=', 'in-progress')
    .returningAll(),
);
const selectLiveChildren = prepared((db, parentSid: string, live: readonly CallStatus[]) =>
  db.selectFrom('calls').selectAll().where('parent_call_sid', '=', parentSid).where('status', 'in', live),
);
const insertRecordingRow = prepared((db, row: RecordingRow) => db.insertInto('recordings').values(row));
const selectRecording = prepared((db, sid: string) => db.selectFrom('recordings').selectAll().where('sid', '=', sid));
const updateProcessingRecording = prepared((db, sid: string, change: Updateable<RecordingRow>) =>
  db
    .updateTable('recordings')
    .set(change)
    .where('sid', '=', sid)
    .where('status', '=', 'processing')
    .returning(RECORDING_META_COLUMNS),
);
const selectVoiceNumber = prepared((db, phoneNumber: string) =>
  db
    .selectFrom('incoming_numbers')
    .select(['account_sid', 'voice_url', 'voice_method', 'status_callback'])
    .where('phone_number', '=', phoneNumber),
);

export function callBySid(db: Conn, sid: string): Promise<CallRow | undefined> {
  return selectCall.first(db, sid);
}

export async function insertCall(db: Conn, row: CallRow): Promise<void> {
  await insertCallRow.run(db, row);
}

/** Applies `change` (and bumps the step) if the leg is still in one of `from`; the row after it, or undefined. */
export function changeCall(
  db: Conn,
  sid: string,
  from: readonly CallStatus[],
  change: Updateable<CallRow>,
): Promise<CallRow | undefined> {
  return updateCallIn.first(db, sid, from, change);
}

/** Stores the machine's new state if nothing else moved the call since `step` was read. */
export function saveMachine(
  db: Conn,
  sid: string,
  step: number,
  machine: string,
  now: string,
): Promise<CallRow | undefined> {
  return updateMachine.first(db, sid, step, step + 1, machine, now);
}

/** The legs a `<Dial>` of this call placed that have not ended. */
export function liveChildren(db: Conn, parentSid: string): Promise<CallRow[]> {
  return selectLiveChildren.all(db, parentSid, LIVE_STATUSES);
}

export async function insertRecording(db: Conn, row: RecordingRow): Promise<void> {
  await insertRecordingRow.run(db, row);
}

export function recordingBySid(db: Conn, sid: string): Promise<RecordingRow | undefined> {
  return selectRecording.first(db, sid);
}

/** Ends a `processing` recording; the row after it (without its audio), or undefined when it had ended already. */
export function finishRecording(db: Conn, sid: string, change: Updateable<RecordingRow>) {
  return updateProcessingRecording.first(db, sid, change);
}

/** Where a leg on this platform is answered: the holder of `phoneNumber` and its voice settings. */
export function voiceNumber(db: Conn, phoneNumber: string) {
  return selectVoiceNumber.first(db, phoneNumber);
}
