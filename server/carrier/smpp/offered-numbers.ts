// The numbers the platform holds on its SMSC (SMPP_NUMBERS): on a real network the operator says which numbers it
// owns, so the available-numbers search offers those (of the searched country and type) and provisioning takes no
// other. A range is written `+FIRST-+LAST` (same length, at most 100000 numbers).

// SMPP_NUMBERS is read (and checked) by server/config.ts.
import type { NumberRange } from '../../config.js';

const E164 = /^\+[1-9]\d{6,14}$/;

/** The numbers a carrier offers, when it restricts them (see NumberService). */
export class OfferedNumbers {
  constructor(private readonly ranges: readonly NumberRange[]) {}

  includes(e164: string): boolean {
    if (!E164.test(e164)) return false;
    const n = BigInt(e164);
    return this.ranges.some((r) => e164.length === r.first.length && n >= BigInt(r.first) && n <= BigInt(r.last));
  }

  /** Every number, in the order the operator listed them. */
  *all(): Generator<string> {
    for (const { first, last } of this.ranges) {
      for (let n = BigInt(first); n <= BigInt(last); n++) yield `+${n}`;
    }
  }
}
