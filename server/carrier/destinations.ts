// Where a number leads, as the sandbox network prices and routes it. Parsing a number (libphonenumber) costs more
// than the rest of a call's dialing, and a call's number is looked at when it is dialed and again when it is priced,
// so the voice side keeps what it learnt of the numbers it saw lately.
import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js';

/** The destination's ISO country, or null when the number does not say. */
export function destinationCountry(
  to: string,
  parsed: PhoneNumber | undefined = parsePhoneNumberFromString(to),
): string | null {
  if (!parsed) return null;
  return parsed.country ?? parsed.getPossibleCountries()[0] ?? (parsed.countryCallingCode === '1' ? 'US' : null);
}

export interface CallDestination {
  /** A number of a possible length for its country (else the network cannot reach it). */
  possible: boolean;
  country: string | null;
}

/** Numbers kept: a few dozen bytes each. */
const KEPT = 10_000;
const recent = new Map<string, CallDestination>();

/** What the number of a call leg is, from memory when it was seen lately. */
export function callDestination(to: string): CallDestination {
  const known = recent.get(to);
  if (known) return known;
  const parsed = parsePhoneNumberFromString(to);
  const destination = { possible: parsed?.isPossible() ?? false, country: destinationCountry(to, parsed) };
  // Oldest first out: a Map iterates in insertion order.
  if (recent.size >= KEPT) recent.delete(recent.keys().next().value!);
  recent.set(to, destination);
  return destination;
}
