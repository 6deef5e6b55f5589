// A stored message as the API returns it (schema Message).
import type { components } from '../../generated/openapi.js';
import type { MessageRow } from '../store/schema.js';

export type MessageRecord = components['schemas']['Message'];

export const FINAL_STATUSES: readonly MessageRow['status'][] = [
  'delivered',
  'undelivered',
  'failed',
  'canceled',
  'read',
  'received',
];

export function messageView(row: MessageRow): MessageRecord {
  return {
    sid: row.sid,
    account_sid: row.account_sid,
    from: row.from_number,
    to: row.to_number,
    body: row.body,
    status: row.status,
    direction: row.direction,
    channel: row.channel,
    num_segments: Number(row.num_segments),
    num_media: Number(row.num_media),
    media_url: JSON.parse(row.media_url),
    price: row.price === null ? null : Number(row.price),
    price_unit: row.price_unit,
    error_code: row.error_code,
    error_message: row.error_message,
    send_at: row.send_at,
    validity_period: Number(row.validity_period),
    status_callback: row.status_callback,
    date_created: row.date_created,
    date_updated: row.date_updated,
    date_sent: row.date_sent,
  };
}
