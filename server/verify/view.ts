// A stored verification as the API returns it (schema Verification). No code, hash or sealed code ever leaves.
import type { components } from '../../generated/openapi.js';
import type { VerificationRow } from '../store/schema.js';
import type { SendAttempt } from './store.js';
import type { Locale } from './templates.js';

export type VerificationRecord = components['schemas']['Verification'];

export function verificationView(row: VerificationRow, sends: SendAttempt[]): VerificationRecord {
  return {
    sid: row.sid,
    account_sid: row.account_sid,
    to: row.to_number,
    channel: row.channel,
    status: row.status,
    valid: row.status === 'approved',
    locale: row.locale as Locale,
    code_length: Number(row.code_length),
    date_expires: row.date_expires,
    send_code_attempts: sends,
    lookup: { line_type: row.line_type, carrier_name: row.carrier_name },
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}
