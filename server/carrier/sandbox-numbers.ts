// The sandbox's magic destination numbers (documented in the spec's Messages tag and docs/messages.md).
import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js';

export type SandboxOutcome =
  | { kind: 'failed'; errorCode: string; errorMessage: string }
  | { kind: 'undelivered'; errorCode: string; errorMessage: string }
  | { kind: 'delivered'; slow: boolean };

const MAGIC_NUMBERS = {
  invalidDestination: '+15005550001',
  unreachable: '+15005550002',
  carrierRejected: '+15005550003',
  slowDelivery: '+15005550004',
  rcsCapable: '+15005550005',
} as const;

/** What the sandbox network does with a message to `to` (`parsed`: the number parsed already, if it was). */
export function outcomeFor(to: string, parsed?: PhoneNumber): SandboxOutcome {
  // Parsed only past the magic numbers, which need no parsing.
  const magic = magicOutcome(to);
  if (magic) return magic;
  if (!(parsed ?? parsePhoneNumberFromString(to))?.isPossible()) {
    return {
      kind: 'failed',
      errorCode: 'invalid_destination',
      errorMessage: 'The destination is not a possible phone number.',
    };
  }
  return { kind: 'delivered', slow: false };
}

/** What the sandbox network does with a message to one of its magic numbers; null for any other number. */
export function magicOutcome(to: string): SandboxOutcome | null {
  switch (to) {
    case MAGIC_NUMBERS.invalidDestination:
      return {
        kind: 'failed',
        errorCode: 'invalid_destination',
        errorMessage: 'The destination number does not exist.',
      };
    case MAGIC_NUMBERS.unreachable:
      return {
        kind: 'undelivered',
        errorCode: 'unreachable_destination',
        errorMessage: 'The handset is off or out of coverage.',
      };
    case MAGIC_NUMBERS.carrierRejected:
      return { kind: 'failed', errorCode: 'carrier_rejected', errorMessage: 'The carrier refused the message.' };
    case MAGIC_NUMBERS.slowDelivery:
      return { kind: 'delivered', slow: true };
  }
  return null;
}

export function isRcsCapable(to: string): boolean {
  return to === MAGIC_NUMBERS.rcsCapable;
}
