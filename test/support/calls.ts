// Calls and recordings written straight into the database, for the API's tests of what only the call engine
// produces (an ended call, a recording with audio), so they need not wait for a call to run.
import type { CallRow, RecordingRow } from '../../server/store/schema.js';
import { newSid } from '../../server/ids.js';
import type { TestServer } from './server.js';

/** A call row of the account, `completed` unless `overrides` says otherwise. */
export async function insertCall(
  t: TestServer,
  accountSid: string,
  overrides: Partial<CallRow> = {},
): Promise<CallRow> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const row: CallRow = {
    sid: newSid('call', now),
    account_sid: accountSid,
    parent_call_sid: null,
    from_number: '+14155550100',
    to_number: '+14155550123',
    direction: 'outbound-api',
    status: 'completed',
    answered_by: 'human',
    url: null,
    method: null,
    twiml: '<Response><Say>Hello</Say></Response>',
    status_callback: null,
    status_callback_events: null,
    recording_status_callback: null,
    record: 0,
    recording_channels: 1,
    timeout: 60,
    time_limit: 14400,
    duration: 3,
    start_time: at,
    end_time: at,
    price: 0.007,
    price_unit: 'USD',
    error_code: null,
    error_message: null,
    peer_sid: null,
    purpose: 'api',
    machine: null,
    step: 3,
    date_created: at,
    date_updated: at,
    ...overrides,
  };
  await t.server.services.store.db.insertInto('calls').values(row).execute();
  return row;
}

/** One second of silence as a WAV file (8 kHz, 16-bit PCM, mono): what a stored recording's audio looks like. */
export function silentWav(seconds = 1): Buffer {
  const data = 8000 * 2 * seconds;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data, 40);
  return Buffer.concat([header, Buffer.alloc(data)]);
}

/** A recording of `call`: `completed` with `silentWav()` unless `overrides` says otherwise. */
export async function insertRecording(
  t: TestServer,
  call: Pick<CallRow, 'sid' | 'account_sid'>,
  overrides: Partial<RecordingRow> = {},
): Promise<RecordingRow> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const row: RecordingRow = {
    sid: newSid('recording', now),
    account_sid: call.account_sid,
    call_sid: call.sid,
    source: 'outbound_api',
    status: 'completed',
    channels: 1,
    duration: 1,
    start_time: at,
    price: 0,
    price_unit: 'USD',
    error_code: null,
    status_callback: null,
    segments: null,
    audio: silentWav(),
    date_created: at,
    date_updated: at,
    ...overrides,
  };
  await t.server.services.store.db.insertInto('recordings').values(row).execute();
  return row;
}

/**
 * Server settings for tests of the calls API itself (not of the engine): the sandbox lets calls ring for ten
 * minutes, so none is answered during the test and none fetches its example.com instructions.
 */
export const CALLS_NEVER_ANSWERED = { SANDBOX_CALL_RING_MS: '600000' };
