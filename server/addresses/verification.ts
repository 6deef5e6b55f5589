// When the verification of a new address runs: a fixed delay, or business days (Monday to Friday, UTC),
// which is how long regulators' checks take in production.
import type { VerificationDelay } from '../config.js';

const DAY_MS = 86_400_000;

export function verificationTime(delay: VerificationDelay, from: Date): Date {
  if ('ms' in delay) return new Date(from.getTime() + delay.ms);
  let at = from.getTime();
  for (let counted = 0; counted < delay.businessDays;) {
    at += DAY_MS;
    const weekday = new Date(at).getUTCDay();
    if (weekday !== 0 && weekday !== 6) counted++;
  }
  return new Date(at);
}
