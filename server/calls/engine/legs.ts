// The rows of the legs the engine creates itself: the inbound leg of a number held on this platform, and the
// child leg of a `<Dial>`. (Outbound API legs are created by the calls service.)
import type { CallRow } from '../../store/schema.js';
import type { Instructions } from '../twiml/verbs.js';
import { newSid } from '../../ids.js';

/** What an inbound leg runs when its number has no voice_url (documented in the Calls tag). */
export const NO_VOICE_APP: Instructions = {
  verbs: [
    {
      verb: 'Say',
      text: 'This number has no voice application configured. Goodbye.',
      voice: 'man',
      language: 'en-US',
      loop: 1,
    },
    { verb: 'Hangup' },
  ],
  url: null,
};

type LegFields = Pick<CallRow, 'account_sid' | 'from_number' | 'to_number' | 'direction' | 'status'> & Partial<CallRow>;

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
    timeout: 60,
    time_limit: 14400,
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

/** A call to `to` arriving at the number's holder: it runs the number's voice_url (see NO_VOICE_APP without). */
export function inboundLeg(
  number: {
    account_sid: string;
    voice_url: string | null;
    voice_method: 'GET' | 'POST';
    status_callback: string | null;
  },
  from: string,
  to: string,
  now: number,
  peerSid: string | null,
): CallRow {
  return newLeg(
    {
      account_sid: number.account_sid,
      from_number: from,
      to_number: to,
      direction: 'inbound',
      status: 'ringing',
      url: number.voice_url,
      method: number.voice_url ? number.voice_method : null,
      status_callback: number.status_callback,
      peer_sid: peerSid,
    },
    now,
  );
}

/** The number the network shows for a leg this one places: its own number on the platform's side. */
export function ownNumber(row: CallRow): string {
  return row.direction === 'inbound' ? row.to_number : row.from_number;
}
