// The checks of the calls API's bodies that the schema cannot say (one field or another, not both), and the new
// row of POST /v1/calls with the spec's defaults. Pure: times and ids come in as arguments.
import type { components } from '../../generated/openapi.js';
import type { CallRow } from '../store/schema.js';
import { errors } from '../errors.js';
import { DEFAULT_TIME_LIMIT, DEFAULT_TIMEOUT, newLeg } from './rows.js';

export type MakeCallInput = components['schemas']['MakeCallRequest'];
export type UpdateCallInput = components['schemas']['UpdateCallRequest'];
export type CallInputBody = components['schemas']['CallInputRequest'];

/** Exactly one of `a` and `b` present; else a 400 naming the field to fix. */
export function exactlyOne(body: Record<string, unknown>, a: string, b: string): void {
  const hasA = body[a] !== undefined;
  const hasB = body[b] !== undefined;
  if (!hasA && !hasB) throw errors.invalidField(a, `${a} or ${b} is required`);
  if (hasA && hasB) throw errors.invalidField(b, `give ${a} or ${b}, not both`);
}

/** What an update asks: an end, or new instructions. Throws the 400 of a body that mixes them or asks nothing. */
export function checkUpdate(body: UpdateCallInput): void {
  if (body.status === undefined && body.url === undefined && body.twiml === undefined) {
    if (body.method !== undefined) throw errors.invalidField('method', 'is only given with url');
    throw errors.invalidRequest('Send status, or new instructions (url or twiml).');
  }
  if (body.status !== undefined) {
    for (const field of ['url', 'method', 'twiml'] as const) {
      if (body[field] !== undefined) throw errors.invalidField(field, 'cannot be sent with status');
    }
    return;
  }
  if (body.url !== undefined && body.twiml !== undefined)
    throw errors.invalidField('twiml', 'give url or twiml, not both');
  if (body.method !== undefined && body.url === undefined)
    throw errors.invalidField('method', 'is only given with url');
}

/** `status_callback_event` as stored: the distinct values, space-separated; null when not given (all events). */
function eventsOf(events: MakeCallInput['status_callback_event']): string | null {
  if (events === undefined) return null;
  return [...new Set(events)].join(' ');
}

export function newCallRow(accountSid: string, sid: string, created: string, body: MakeCallInput): CallRow {
  const fields = {
    sid,
    account_sid: accountSid,
    from_number: body.from,
    to_number: body.to,
    direction: 'outbound-api',
    status: 'queued',
    url: body.url ?? null,
    // The method that fetches `url`; with inline instructions there is nothing to fetch.
    method: body.url === undefined ? null : (body.method ?? 'POST'),
    twiml: body.twiml ?? null,
    status_callback: body.status_callback ?? null,
    status_callback_events: eventsOf(body.status_callback_event),
    recording_status_callback: body.recording_status_callback ?? null,
    record: body.record ? 1 : 0,
    recording_channels: body.recording_channels === 'dual' ? 2 : 1,
    timeout: body.timeout ?? DEFAULT_TIMEOUT,
    time_limit: body.time_limit ?? DEFAULT_TIME_LIMIT,
  } as const;
  return newLeg(fields, Date.parse(created));
}
