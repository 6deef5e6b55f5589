// SQL of the recordings the API reads: their metadata without the audio, and the audio of a completed one.
import type { Db } from '../../store/db.js';
import type { RecordingRow } from '../../store/schema.js';
import { paginate, type Page, type PageRequest } from '../../store/pagination.js';

export type RecordingMeta = Omit<RecordingRow, 'audio' | 'segments'>;

/** The columns of a recording but its audio and segments (what the API and its events show). */
export const RECORDING_META_COLUMNS = [
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
] as const satisfies readonly (keyof RecordingMeta)[];

/** The recordings of one call of the account, newest first. */
export function listRecordings(
  db: Db,
  accountSid: string,
  callSid: string,
  page: PageRequest,
): Promise<Page<RecordingMeta>> {
  const query = db
    .selectFrom('recordings')
    .select(RECORDING_META_COLUMNS)
    .where('call_sid', '=', callSid)
    .where('account_sid', '=', accountSid);
  return paginate(query, page);
}

/**
 * A recording of the account (its status, and its audio when it has some); undefined for another account's, and for
 * one of a call placed for Verify (whose audio speaks a code).
 */
export function findRecordingAudio(
  db: Db,
  accountSid: string,
  sid: string,
): Promise<Pick<RecordingRow, 'status' | 'audio'> | undefined> {
  return db
    .selectFrom('recordings')
    .innerJoin('calls', 'calls.sid', 'recordings.call_sid')
    .select(['recordings.status', 'recordings.audio'])
    .where('recordings.sid', '=', sid)
    .where('recordings.account_sid', '=', accountSid)
    .where('calls.purpose', '=', 'api')
    .executeTakeFirst();
}
