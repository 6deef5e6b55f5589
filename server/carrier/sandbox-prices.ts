// The sandbox network's price list, in USD: per SMS segment, per MMS and per RCS message, and per started minute
// of an outbound call, by destination country; inbound calls at one inbound rate.
import type { PhoneNumber } from 'libphonenumber-js';
import type { CarrierChannel } from './carrier.js';
import { callDestination, destinationCountry } from './destinations.js';

interface Rates {
  sms: number;
  mms: number;
  rcs: number;
}

const PRICES: Record<string, Rates> = {
  US: { sms: 0.0079, mms: 0.02, rcs: 0.0045 },
  CA: { sms: 0.0075, mms: 0.02, rcs: 0.0045 },
  GB: { sms: 0.04, mms: 0.1, rcs: 0.03 },
  DE: { sms: 0.075, mms: 0.15, rcs: 0.05 },
  FR: { sms: 0.07, mms: 0.15, rcs: 0.05 },
  ES: { sms: 0.06, mms: 0.15, rcs: 0.04 },
  IT: { sms: 0.07, mms: 0.15, rcs: 0.05 },
  NL: { sms: 0.09, mms: 0.15, rcs: 0.05 },
  AU: { sms: 0.0515, mms: 0.12, rcs: 0.04 },
  IN: { sms: 0.0083, mms: 0.05, rcs: 0.004 },
  BR: { sms: 0.06, mms: 0.12, rcs: 0.03 },
  MX: { sms: 0.05, mms: 0.1, rcs: 0.03 },
  JP: { sms: 0.07, mms: 0.15, rcs: 0.05 },
};

const OTHER: Rates = { sms: 0.05, mms: 0.12, rcs: 0.04 };

export const PRICE_UNIT = 'USD';

/** What sending one message costs: per segment for SMS, per message for MMS and RCS. */
export function messagePrice(to: string, channel: CarrierChannel, numSegments: number, parsed?: PhoneNumber): number {
  const rates = PRICES[destinationCountry(to, parsed) ?? ''] ?? OTHER;
  const amount = channel === 'sms' || channel === 'whatsapp' ? rates.sms * Math.max(1, numSegments) : rates[channel];
  return Math.round(amount * 10_000) / 10_000;
}

/** Per started minute of an outbound call, by destination country. */
const VOICE_PER_MINUTE: Record<string, number> = {
  US: 0.014,
  CA: 0.014,
  GB: 0.024,
  DE: 0.045,
  FR: 0.04,
  ES: 0.035,
  IT: 0.04,
  NL: 0.05,
  AU: 0.035,
  IN: 0.025,
  BR: 0.06,
  MX: 0.03,
  JP: 0.07,
};
const VOICE_OTHER = 0.1;
const VOICE_INBOUND = 0.0085;

/** What a call leg of `durationS` seconds costs: per started minute (nothing when it was never answered). */
export function callPrice(to: string, direction: 'inbound' | 'outbound', durationS: number): number {
  const rate =
    direction === 'inbound' ? VOICE_INBOUND : (VOICE_PER_MINUTE[callDestination(to).country ?? ''] ?? VOICE_OTHER);
  return Math.round(rate * Math.ceil(durationS / 60) * 10_000) / 10_000;
}
