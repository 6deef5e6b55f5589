// A stored call or recording as the API returns it (schemas Call and Recording).
import type { components } from '../../generated/openapi.js';
import type { CallRow, CallStatus, RecordingRow } from '../store/schema.js';

export type CallRecord = components['schemas']['Call'];
export type RecordingRecord = components['schemas']['Recording'];

export const FINAL_CALL_STATUSES: readonly CallStatus[] = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

export function callView(row: CallRow): CallRecord {
  return {
    sid: row.sid,
    account_sid: row.account_sid,
    from: row.from_number,
    to: row.to_number,
    status: row.status,
    direction: row.direction,
    parent_call_sid: row.parent_call_sid,
    answered_by: row.answered_by,
    url: row.url,
    method: row.method,
    status_callback: row.status_callback,
    duration: row.duration === null ? null : Number(row.duration),
    start_time: row.start_time,
    end_time: row.end_time,
    price: row.price === null ? null : Number(row.price),
    price_unit: row.price_unit,
    error_code: row.error_code,
    error_message: row.error_message,
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}

/** `publicUrl`: the server's own base URL (no trailing slash), for the absolute `media_url`. */
export function recordingView(row: Omit<RecordingRow, 'audio' | 'segments'>, publicUrl: string): RecordingRecord {
  return {
    sid: row.sid,
    account_sid: row.account_sid,
    call_sid: row.call_sid,
    status: row.status,
    source: row.source,
    duration: row.duration === null ? null : Number(row.duration),
    channels: Number(row.channels),
    start_time: row.start_time,
    price: row.price === null ? null : Number(row.price),
    price_unit: row.price_unit,
    error_code: row.error_code,
    media_url: `${publicUrl}/v1/recordings/${row.sid}/media`,
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}
