// The numbers the platform holds on its SMSC (SMPP_NUMBERS): on a real network the operator says which numbers it
// owns, so the available-numbers search offers those (of the searched country and type) and provisioning takes no
// other. A range is written `+FIRST-+LAST` (same length, at most MAX_RANGE numbers).

/** One run of consecutive E.164 numbers, both ends included. */
export interface NumberRange {
  first: string;
  last: string;
}

const E164 = /^\+[1-9]\d{6,14}$/;
/** The most numbers one range may hold (the search walks them). */
const MAX_RANGE = 100_000;

/** The ranges of a comma list of E.164 numbers and ranges, or undefined when an entry is not one. */
export function parseNumberRanges(raw: string): NumberRange[] | undefined {
  const ranges: NumberRange[] = [];
  for (const entry of raw.split(',').map((e) => e.trim())) {
    if (!entry) continue;
    const [first, last = first, ...rest] = entry.split('-');
    if (rest.length || !E164.test(first) || !E164.test(last) || first.length !== last.length) return undefined;
    const size = BigInt(last) - BigInt(first) + 1n;
    if (size < 1n || size > BigInt(MAX_RANGE)) return undefined;
    ranges.push({ first, last });
  }
  return ranges.length ? ranges : undefined;
}

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
