// The fraud guard in front of every first send: codes never go to numbers that cost the sender extra (the
// revenue of SMS pumping) or that number intelligence scores as spam. Pure: it judges a lookup result.
import type { PhoneNumberLookup } from '../lookups/service.js';

const BLOCKED_LINE_TYPES: readonly string[] = ['premium', 'shared_cost'];
const BLOCKING_SPAM_SCORE = 80;

/** Why codes may not go to this number, or null when they may. */
export function blockedReason(
  lookup: Pick<PhoneNumberLookup, 'valid' | 'line_type' | 'spam_score' | 'phone_number'>,
): string | null {
  if (!lookup.valid) return `${lookup.phone_number} is not a valid phone number, so no code can reach it.`;
  if (BLOCKED_LINE_TYPES.includes(lookup.line_type)) {
    const kind = lookup.line_type.replace('_', '-');
    return `${lookup.phone_number} is a ${kind} number; verification codes are not sent to high-cost destinations.`;
  }
  if (lookup.spam_score >= BLOCKING_SPAM_SCORE) {
    return (
      `${lookup.phone_number} has a spam score of ${lookup.spam_score} (${BLOCKING_SPAM_SCORE} or more is refused); ` +
      'see GET /v1/lookups/phone-numbers/{number} for the reasons.'
    );
  }
  return null;
}
