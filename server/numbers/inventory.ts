// The inventory of available numbers: never stored, drawn on demand from the country's ranges (ranges.ts) by
// a PRNG seeded with the search, so the same search draws the same numbers; every number drawn is checked
// valid and of its type by libphonenumber. Holding numbers is the service's business (it filters them out).
import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js/max';
import type { components } from '../../generated/openapi.js';
import { COUNTRIES, capabilitiesOf, kindCapabilities, type CountryProfile, type NumberKind } from './countries.js';
import { countryRanges, parseOfKind, TYPES_OF, type Block, type CountryRanges } from './ranges.js';
import { seededRandom } from './random.js';
import { fold, regionMatches } from './regions.js';

export type AvailableNumber = components['schemas']['AvailablePhoneNumber'];
export type SearchType = 'Local' | 'TollFree';

export interface SearchFilters {
  areaCode?: string;
  /** Digits and `*` (any one digit), matched anywhere in the E.164 digits. */
  contains?: string;
  smsEnabled?: boolean;
  mmsEnabled?: boolean;
  voiceEnabled?: boolean;
  inRegion?: string;
  inLocality?: string;
  excludeAddressRequired?: boolean;
}

/** A block that fits the filters, with its digits so far (`?` free) and where `contains` may start in them. */
interface Entry {
  block: Block;
  template: string;
  offsets: number[];
}

/** Consecutive draws that yield nothing new before the search counts the matching ranges as exhausted. */
const MAX_MISSES = 3000;
const CACHE_SIZE = 256;
const entryCache = new Map<string, Entry[]>();

/** A search's draws so far, kept so that repeating the search replays them instead of validating again. */
interface Sequence {
  drawn: AvailableNumber[];
  source: Generator<AvailableNumber>;
  done: boolean;
}
/** Numbers kept across all sequences (about 250 bytes each); the least recently used searches go first. */
const MAX_KEPT = 200_000;
const sequences = new Map<string, Sequence>();
let kept = 0;

/**
 * Draws available numbers for a search, lazily, in a deterministic order, without repeats.
 * The caller stops pulling once it has enough.
 */
export async function drawNumbers(
  iso: string,
  type: SearchType,
  filters: SearchFilters,
): Promise<Iterable<AvailableNumber>> {
  const profile = COUNTRIES.get(iso)!;
  const ranges = await countryRanges(type === 'TollFree' ? profile.tollFreeFrom : profile.iso);
  const key = `${profile.iso}|${type}|${JSON.stringify(filters)}`;
  let sequence = sequences.get(key);
  if (sequence) sequences.delete(key);
  else sequence = { drawn: [], source: draw(ranges, type, filters, key), done: false };
  sequences.set(key, sequence);
  for (const [oldest, old] of sequences) {
    if (kept <= MAX_KEPT || oldest === key) break;
    kept -= old.drawn.length;
    sequences.delete(oldest);
  }
  return replay(sequence);
}

function* replay(sequence: Sequence): Generator<AvailableNumber> {
  for (let i = 0; ; i++) {
    if (i < sequence.drawn.length) {
      yield sequence.drawn[i];
      continue;
    }
    if (sequence.done) return;
    const next = sequence.source.next();
    if (next.done) {
      sequence.done = true;
      return;
    }
    sequence.drawn.push(next.value);
    kept++;
    yield next.value;
  }
}

function* draw(
  ranges: CountryRanges,
  type: SearchType,
  filters: SearchFilters,
  seed: string,
): Generator<AvailableNumber> {
  const { profile, callingCode } = ranges;
  const pools = kindsFor(profile, type, filters)
    .map((kind) => ({ kind, entries: entriesFor(ranges, kind, filters) }))
    .filter((pool) => pool.entries.length > 0);
  if (pools.length === 0) return;
  const random = seededRandom(seed);
  const seen = new Set<string>();
  for (let misses = 0; misses < MAX_MISSES; misses++) {
    // Geographic numbers three times as often as mobile ones where Local search offers both.
    const pool = pools.length > 1 && random.int(4) === 0 ? pools[1] : pools[0];
    const entry = pool.entries[random.int(pool.entries.length)];
    let digits = entry.template;
    if (filters.contains) {
      const at = entry.offsets[random.int(entry.offsets.length)];
      digits =
        digits.slice(0, at) +
        overlay(digits.slice(at, at + filters.contains.length), filters.contains) +
        digits.slice(at + filters.contains.length);
    }
    digits = digits.replace(/\?/g, () => String(random.int(10)));
    const national = digits.slice(callingCode.length);
    if (seen.has(national)) continue;
    seen.add(national);
    if (!ranges.pattern[pool.kind].test(national)) continue;
    const parsed = parseOfKind(`+${digits}`, profile.iso, pool.kind);
    if (!parsed) continue;
    const number = available(profile, pool.kind, entry.block, parsed);
    const caps = number.capabilities;
    if ((filters.smsEnabled && !caps.sms) || (filters.mmsEnabled && !caps.mms) || (filters.voiceEnabled && !caps.voice))
      continue;
    misses = -1;
    yield number;
  }
}

/** The inventory's description of a number, or null when the inventory does not offer it. */
export async function describeNumber(e164: string): Promise<(AvailableNumber & { number_type: NumberKind }) | null> {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed?.country || !parsed.isValid() || parsed.number !== e164) return null;
  const profile = COUNTRIES.get(parsed.country);
  const type = parsed.getType();
  const kind = (Object.keys(TYPES_OF) as NumberKind[]).find((k) => type !== undefined && TYPES_OF[k].includes(type));
  if (!profile || !kind || (kind === 'mobile' && !profile.mobileInLocal)) return null;
  const block = (await countryRanges(profile.iso)).blockOf(kind, parsed.nationalNumber);
  return block ? available(profile, kind, block, parsed) : null;
}

function available(
  profile: CountryProfile,
  kind: NumberKind,
  block: Block,
  parsed: PhoneNumber,
): AvailableNumber & { number_type: NumberKind } {
  return {
    phone_number: parsed.number,
    friendly_name: parsed.formatNational(),
    locality: block.place.locality,
    region: block.place.region,
    iso_country: profile.iso,
    number_type: kind,
    capabilities: capabilitiesOf(profile, kind, parsed.number),
    address_requirements: profile.addressRequirements,
  };
}

function kindsFor(profile: CountryProfile, type: SearchType, filters: SearchFilters): NumberKind[] {
  if (filters.excludeAddressRequired && profile.addressRequirements !== 'none') return [];
  if (type === 'TollFree' && (filters.inRegion || filters.inLocality)) return [];
  const kinds: NumberKind[] =
    type === 'TollFree' ? ['toll_free'] : profile.mobileInLocal ? ['local', 'mobile'] : ['local'];
  // Leave out kinds that can never have an asked-for capability, instead of drawing them in vain.
  return kinds.filter((kind) => {
    const best = kindCapabilities(profile, kind);
    return (
      !(filters.smsEnabled && !best.sms) && !(filters.mmsEnabled && !best.mms) && !(filters.voiceEnabled && !best.voice)
    );
  });
}

/** The blocks of a kind that fit the filters on area, place and digits; cached, as searches repeat. */
function entriesFor(ranges: CountryRanges, kind: NumberKind, filters: SearchFilters): Entry[] {
  const key = [
    ranges.profile.iso,
    kind,
    filters.areaCode,
    filters.inRegion && fold(filters.inRegion),
    filters.inLocality && fold(filters.inLocality),
    filters.contains,
  ].join('|');
  const cached = entryCache.get(key);
  if (cached) return cached;
  const entries: Entry[] = [];
  const { callingCode, profile } = ranges;
  for (const block of ranges.blocks[kind]) {
    if (filters.inRegion && !regionMatches(profile.iso, block.place.region, filters.inRegion)) continue;
    if (filters.inLocality && (!block.place.locality || fold(block.place.locality) !== fold(filters.inLocality)))
      continue;
    let fixed = block.prefix;
    const area = filters.areaCode;
    if (area) {
      if (area.length >= block.length || !(area.startsWith(fixed) || fixed.startsWith(area))) continue;
      if (area.length > fixed.length) fixed = area;
    }
    const template = callingCode + fixed.padEnd(block.length, '?');
    const offsets = filters.contains ? fits(template, filters.contains) : [0];
    if (offsets.length > 0) entries.push({ block, template, offsets });
  }
  if (entryCache.size >= CACHE_SIZE) entryCache.delete(entryCache.keys().next().value!);
  entryCache.set(key, entries);
  return entries;
}

/** Start positions in `template` where `pattern` agrees with every digit already fixed. */
function fits(template: string, pattern: string): number[] {
  const out: number[] = [];
  for (let at = 0; at + pattern.length <= template.length; at++) {
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const t = template[at + i];
      ok = pattern[i] === '*' || t === '?' || t === pattern[i];
    }
    if (ok) out.push(at);
  }
  return out;
}

/** `pattern` laid over `digits`: its digits replace, its `*` keep what is there (a fixed digit or `?`). */
function overlay(digits: string, pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) out += pattern[i] === '*' ? digits[i] : pattern[i];
  return out;
}
