// A new call leg's row: every column at its starting value, for the calls service (API legs) and the engine
// (inbound, Dial and verification legs) alike.
import type { CallRow } from '../store/schema.js';
import { newSid } from '../ids.js';

export const DEFAULT_TIMEOUT = 60;
export const DEFAULT_TIME_LIMIT = 14400;

type LegFields = Pick<CallRow, 'account_sid' | 'from_number' | 'to_number' | 'direction' | 'status'> & Partial<CallRow>;

/** A leg created at `now` (ms): a new sid unless `fields` gives one, nothing run, nothing charged yet. */
export function newLeg(fields: LegFields, now: number): CallRow {
  const at = new Date(now).toISOString();
  return {
    sid: newSid('call', now),
    parent_call_sid: null,
    answered_by: null,
    url: null,
    method: null,
    twiml: null,
    status_callback: null,
    status_callback_events: null,
    recording_status_callback: null,
    record: 0,
    recording_channels: 1,
    timeout: DEFAULT_TIMEOUT,
    time_limit: DEFAULT_TIME_LIMIT,
    duration: null,
    start_time: null,
    end_time: null,
    price: null,
    price_unit: 'USD',
    error_code: null,
    error_message: null,
    peer_sid: null,
    purpose: 'api',
    machine: null,
    step: 0,
    date_created: at,
    date_updated: at,
    ...fields,
  };
}
