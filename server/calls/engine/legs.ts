// The rows of the legs the engine creates itself: the inbound leg of a number held on this platform, and the
// child leg of a `<Dial>`. (Outbound API legs are created by the calls service; both start from rows.ts.)
import type { CallRow } from '../../store/schema.js';
import type { Instructions } from '../twiml/verbs.js';
import { newLeg } from '../rows.js';

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
