// The number ranges ("blocks") of one country's inventory, built once per country on first use:
// geographic blocks from the geocoding table's most precise prefixes (each with its place), and mobile and
// toll-free blocks (and geographic ones where no geocoding data exists) drawn from the numbering plan's
// patterns. A block is a national-number prefix plus a length; its numbers are the valid ones under it.
import { createRequire } from 'node:module';
import {
  getCountryCallingCode,
  parsePhoneNumberFromString,
  type CountryCode,
  type NumberType,
  type PhoneNumber,
} from 'libphonenumber-js/max';
import { COUNTRIES, type CountryProfile, type NumberKind } from './countries.js';
import { geocodeTable, leafPrefixes } from './geocodes.js';
import { PatternSampler } from './pattern.js';
import { seededRandom, type Random } from './random.js';
import { fallbackPlace, placeOf, type Place } from './regions.js';

export interface Block {
  kind: NumberKind;
  /** Leading digits of the national (significant) number. */
  prefix: string;
  /** Digits in the national number. */
  length: number;
  place: Place;
}

export interface CountryRanges {
  profile: CountryProfile;
  callingCode: string;
  blocks: Record<NumberKind, Block[]>;
  /** Quick pre-check before libphonenumber's full validation: the plan's pattern for the kind, anchored. */
  pattern: Record<NumberKind, RegExp>;
  /** The block holding a national number of this kind, if the inventory has one. */
  blockOf(kind: NumberKind, nationalNumber: string): Block | null;
}

/** libphonenumber's number types that count as each kind. */
export const TYPES_OF: Record<NumberKind, NumberType[]> = {
  local: ['FIXED_LINE', 'FIXED_LINE_OR_MOBILE'],
  mobile: ['MOBILE'],
  toll_free: ['TOLL_FREE'],
};

// The compact "max" metadata: per country, [2] the national pattern, [3] possible lengths, [11] the types
// ([0] fixed line, [1] mobile, [2] toll-free), each [pattern, possible lengths?].
type CountryMetadata = [string, string, string, number[], ...unknown[]];
const metadata = createRequire(import.meta.url)('libphonenumber-js/metadata.max.json') as {
  countries: Record<string, CountryMetadata>;
};
const TYPE_INDEX: Record<NumberKind, number> = { local: 0, mobile: 1, toll_free: 2 };
/** Digits left free under a drawn block; 10 000 numbers per block at most. */
const FREE_DIGITS = 4;
const PATTERN_SAMPLES = 1500;
/** National numbers longer than this are extensions or oddities, not what anyone buys. */
const MAX_LENGTH = 11;
/** Geographic numbers rarely run past ten digits; longer ones are valid but look odd (030 215566533). */
const MAX_GEOGRAPHIC_LENGTH = 10;

function typePlan(iso: CountryCode, kind: NumberKind): { pattern: string; lengths: number[] } | null {
  const country = metadata.countries[iso];
  const types = country[11] as ([string, number[]?] | undefined)[] | undefined;
  const type = types?.[TYPE_INDEX[kind]];
  if (!type?.[0]) return null;
  return { pattern: type[0], lengths: type[1] ?? country[3] };
}

/** The parsed number when it is valid and of the kind's type in `iso`, by libphonenumber itself; else null. */
export function parseOfKind(e164: string, iso: CountryCode, kind: NumberKind): PhoneNumber | null {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed || parsed.country !== iso || !parsed.isValid()) return null;
  const type = parsed.getType();
  return type !== undefined && TYPES_OF[kind].includes(type) ? parsed : null;
}

const cache = new Map<string, Promise<CountryRanges>>();

/** The ranges of a supported country, built on first use and kept. */
export function countryRanges(iso: string): Promise<CountryRanges> {
  let ranges = cache.get(iso);
  if (!ranges) {
    ranges = build(COUNTRIES.get(iso)!);
    cache.set(iso, ranges);
  }
  return ranges;
}

async function build(profile: CountryProfile): Promise<CountryRanges> {
  const iso = profile.iso;
  const callingCode = getCountryCallingCode(iso);
  const random = seededRandom(`ranges:${iso}`);
  const pattern = {} as Record<NumberKind, RegExp>;
  for (const kind of ['local', 'mobile', 'toll_free'] as NumberKind[]) {
    const plan = typePlan(iso, kind);
    pattern[kind] = plan ? new RegExp(`^(?:${plan.pattern})$`) : /^$/;
  }
  const table = await geocodeTable(callingCode);
  const local = table ? geographicBlocks(profile, callingCode, table, pattern.local, random) : [];
  const blocks: Record<NumberKind, Block[]> = {
    local: local.length > 0 ? local : drawnBlocks(profile, callingCode, 'local', random),
    mobile: profile.mobileInLocal ? drawnBlocks(profile, callingCode, 'mobile', random) : [],
    toll_free: profile.tollFreeFrom === iso ? drawnBlocks(profile, callingCode, 'toll_free', random) : [],
  };
  const index = Object.fromEntries(
    Object.entries(blocks).map(([kind, list]) => [kind, new Map(list.map((b) => [`${b.prefix}/${b.length}`, b]))]),
  ) as Record<NumberKind, Map<string, Block>>;
  const longest = Math.max(
    1,
    ...Object.values(blocks)
      .flat()
      .map((b) => b.prefix.length),
  );
  return {
    profile,
    callingCode,
    blocks,
    pattern,
    blockOf(kind, nationalNumber) {
      for (let n = Math.min(longest, nationalNumber.length); n > 0; n--) {
        const block = index[kind].get(`${nationalNumber.slice(0, n)}/${nationalNumber.length}`);
        if (block) return block;
      }
      return null;
    },
  };
}

function completion(prefix: string, length: number, random: Random): string {
  let out = prefix;
  while (out.length < length) out += String(random.int(10));
  return out;
}

/**
 * One block per most-precise geocoding prefix that belongs to this country (the NANP shares calling code 1)
 * and whose numbers the plan allows: its length is the longest one at which drawn numbers match the plan.
 */
function geographicBlocks(
  profile: CountryProfile,
  callingCode: string,
  table: Record<string, string>,
  pattern: RegExp,
  random: Random,
): Block[] {
  const iso = profile.iso;
  const lengths = (typePlan(iso, 'local')?.lengths ?? [])
    .filter((n) => n <= MAX_GEOGRAPHIC_LENGTH)
    .sort((a, b) => b - a);
  const countryOfArea = new Map<string, boolean>();
  const blocks: Block[] = [];
  for (const prefix of leafPrefixes(table)) {
    const length = lengths.find(
      (n) => n > prefix.length && [0, 1, 2].some(() => pattern.test(completion(prefix, n, random))),
    );
    if (!length) continue;
    if (callingCode === '1') {
      const area = prefix.slice(0, 3);
      let ours = countryOfArea.get(area);
      if (ours === undefined) {
        ours = sameCountry(iso, callingCode, area, length, random);
        countryOfArea.set(area, ours);
      }
      if (!ours) continue;
    }
    blocks.push({ kind: 'local', prefix, length, place: placeOf(iso, table[prefix]) });
  }
  return blocks;
}

function sameCountry(iso: CountryCode, callingCode: string, prefix: string, length: number, random: Random): boolean {
  for (let i = 0; i < 20; i++) {
    const parsed = parsePhoneNumberFromString(`+${callingCode}${completion(prefix, length, random)}`);
    if (parsed?.isValid()) return parsed.country === iso;
  }
  return false;
}

/** Blocks under numbers drawn from the plan's pattern for the kind, each checked valid by libphonenumber. */
function drawnBlocks(profile: CountryProfile, callingCode: string, kind: NumberKind, random: Random): Block[] {
  const plan = typePlan(profile.iso, kind);
  if (!plan) return [];
  const sampler = new PatternSampler(plan.pattern);
  const lengths = new Set(plan.lengths.filter((n) => n <= MAX_LENGTH));
  const seen = new Map<string, Block>();
  for (let i = 0; i < PATTERN_SAMPLES; i++) {
    const national = sampler.sample(random);
    if (!lengths.has(national.length)) continue;
    const prefix = national.slice(0, Math.max(1, national.length - FREE_DIGITS));
    const key = `${prefix}/${national.length}`;
    if (seen.has(key) || !parseOfKind(`+${callingCode}${national}`, profile.iso, kind)) continue;
    const place =
      kind === 'local'
        ? (fallbackPlace(profile.iso, national) ?? { locality: null, region: null })
        : { locality: null, region: null };
    seen.set(key, { kind, prefix, length: national.length, place });
  }
  return [...seen.values()];
}
