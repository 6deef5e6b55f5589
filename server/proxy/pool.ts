// The proxy pool: each participant of a new session gets one of the account's numbers that can carry the session's
// mode, such that the pair (participant, proxy number) serves no other open session. The database decides: the
// participant is inserted open, and the partial unique index proxy_participants_open_pair refuses a pair already
// taken (committed, or being committed by a concurrent creation, which the insert waits for); the next candidate is
// tried then. Nothing is read first to decide, so no two creations can both take a pair, on any instance.
import type { Tx } from '../store/db.js';
import type { ProxyParticipantRow, ProxySessionRow } from '../store/schema.js';
import type { Capabilities } from '../numbers/countries.js';
import { destinationCountry } from '../carrier/destinations.js';
import { errors } from '../errors.js';
import { newSid } from '../ids.js';
import { insertParticipant, numbersVersion, poolNumbers, type PoolNumber } from './session-store.js';

interface ParticipantInput {
  identifier: string;
  friendly_name?: string;
}

/** What a number must be able to do to serve as a proxy number in a session of `mode`. */
function serves(capabilities: Capabilities, mode: ProxySessionRow['mode']): boolean {
  if (mode === 'message-only') return capabilities.sms;
  if (mode === 'voice-only') return capabilities.voice;
  return capabilities.sms && capabilities.voice;
}

/** A NANP number's area code (the three digits after +1), else null. */
function areaCode(e164: string): string | null {
  return e164.startsWith('+1') ? e164.slice(2, 5) : null;
}

/** A small, stable hash of a participant's identifier (FNV-1a), to spread participants over the pool. */
function spreadOf(identifier: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < identifier.length; i++) hash = Math.imul(hash ^ identifier.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A pool number as candidates are ranked: its capabilities parsed and its area code taken once. */
interface Candidate {
  number: string;
  country: string;
  area: string | null;
  capabilities: Capabilities;
}

/** The account's numbers as the pool ranks them, in the order of their numbers. */
export interface Pool {
  candidates: Candidate[];
  numbers: Set<string>;
  /** The countries and NANP area codes of the numbers: a rank that none of them can give is not looked for. */
  countries: Set<string>;
  areas: Set<string>;
}

// Creations read the same pool again and again: each account's is kept at the version of its numbers it was read at
// (migration 026), and read again only when the version changed. Bounded by the numbers kept in all (an account may
// hold thousands): cleared when full, as accounts come and go.
const kept = new Map<string, { version: number; pool: Pool }>();
let numbersKept = 0;
const NUMBERS_KEPT = 100_000;

/**
 * The account's pool, in the caller's transaction: its numbers' version is read first, then the numbers when the
 * version is not the one they were kept at, so what is used is never older than what the transaction sees.
 */
export async function poolOf(db: Tx['db'], accountSid: string): Promise<Pool> {
  const version = await numbersVersion(db, accountSid);
  const known = kept.get(accountSid);
  if (known?.version === version) return known.pool;
  const candidates = (await poolNumbers(db, accountSid)).map(candidateOf);
  const pool: Pool = {
    candidates,
    numbers: new Set(candidates.map((c) => c.number)),
    countries: new Set(candidates.map((c) => c.country)),
    areas: new Set(candidates.flatMap((c) => (c.area === null ? [] : [c.area]))),
  };
  if (known) numbersKept -= known.pool.candidates.length;
  if (numbersKept + candidates.length > NUMBERS_KEPT) {
    kept.clear();
    numbersKept = 0;
  }
  kept.set(accountSid, { version, pool });
  numbersKept += candidates.length;
  return pool;
}

function candidateOf(n: PoolNumber): Candidate {
  const capabilities = JSON.parse(n.capabilities) as Capabilities;
  return { number: n.phone_number, country: n.iso_country, area: areaCode(n.phone_number), capabilities };
}

/**
 * The numbers of `usable` in the order a participant tries them, like Twilio's geographic match: those in the
 * participant's country before the others and, in the NANP, those of the participant's area code first. Among equals
 * each participant starts at its own place (a hash of its identifier) and goes round: new participants spread over
 * the pool instead of all taking its first number, so each number's sending rate (a carrier's limit per number)
 * serves a share of the sessions, and a participant finds a free number at its first try more often. Lazily, rank
 * by rank: a participant whose first candidate is free costs one pass at most, with no sort.
 */
function* candidatesFor(pool: Pool, usable: Candidate[], identifier: string): Generator<string> {
  // The participant's country (a libphonenumber parse, the dearest step of a creation) orders nothing when every
  // number is of one country: it ranks them all alike.
  const country = pool.countries.size > 1 ? destinationCountry(identifier) : null;
  const area = areaCode(identifier);
  const start = usable.length ? spreadOf(identifier) % usable.length : 0;
  const rank = (c: Candidate) => (c.country === country ? 0 : 2) + (area !== null && c.area === area ? 0 : 1);
  // A rank is looked for only where a number of the pool could have it: a participant of a country or an area code
  // the pool lacks (the usual new participant) is served from the first pass, not the fourth.
  const countryMatch = country !== null && pool.countries.has(country);
  const areaMatch = area !== null && pool.areas.has(area);
  const possible = [countryMatch && areaMatch, countryMatch, areaMatch, true];
  for (let r = 0; r <= 3; r++) {
    if (!possible[r]) continue;
    for (let turn = 0; turn < usable.length; turn++) {
      const c = usable[(start + turn) % usable.length];
      if (rank(c) === r) yield c.number;
    }
  }
}

/**
 * Gives each participant of the new session (inserted in `tx` just before) a proxy number from `pool`, inserting
 * them open; `422 no_proxy_number_available` naming the first participant none is left for (the caller's
 * transaction then rolls back: no half-made session stays). Participants are taken in the order of their
 * identifiers, so that two creations never wait for each other's pairs in opposite orders (a deadlock on PostgreSQL).
 */
export async function assignProxyNumbers(
  tx: Tx,
  session: ProxySessionRow,
  participants: ParticipantInput[],
  pool: Pool,
): Promise<ProxyParticipantRow[]> {
  const now = tx.clock.now();
  const usable = pool.candidates.filter((c) => serves(c.capabilities, session.mode));
  const byIdentifier = participants
    .map((input, position) => ({ input, position }))
    .sort((a, b) => (a.input.identifier < b.input.identifier ? -1 : 1));
  const rows: ProxyParticipantRow[] = [];
  for (const { input, position } of byIdentifier) {
    let taken: ProxyParticipantRow | undefined;
    for (const proxyIdentifier of candidatesFor(pool, usable, input.identifier)) {
      const row: ProxyParticipantRow = {
        sid: newSid('proxyParticipant', now),
        session_sid: session.sid,
        account_sid: session.account_sid,
        position,
        identifier: input.identifier,
        proxy_identifier: proxyIdentifier,
        friendly_name: input.friendly_name ?? null,
        open: 1,
      };
      if (await insertParticipant(tx.db, row)) {
        taken = row;
        break;
      }
    }
    if (!taken) throw errors.noProxyNumberAvailable(input.identifier, session.mode);
    rows.push(taken);
  }
  return rows.sort((a, b) => a.position - b.position);
}
