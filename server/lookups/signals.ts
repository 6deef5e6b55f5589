// What this platform has seen of a set of numbers, gathered with one query per signal for the whole set
// (a batch of 1000 numbers costs the same few queries as one). Counts span every account: spam is a
// property of the number, not of who asks.
import type { Db } from '../store/db.js';
import { NOTHING_SEEN, type PlatformSignals } from './spam-score.js';

export async function gatherPlatformSignals(db: Db, numbers: string[], now: number = Date.now()): Promise<Map<string, PlatformSignals>> {
  const unique = [...new Set(numbers)];
  const signals = new Map<string, PlatformSignals>(unique.map((n) => [n, { ...NOTHING_SEEN }]));
  if (unique.length === 0) return signals;
  const [held, traffic, verifications] = await Promise.all([
    heldNumbers(db, unique),
    messageTraffic(db, unique, now),
    verificationTraffic(db, unique, now),
  ]);
  for (const number of held) signals.get(number)!.held = true;
  for (const [number, counts] of [...traffic, ...verifications]) Object.assign(signals.get(number)!, counts);
  return signals;
}

type Counts = Partial<Omit<PlatformSignals, 'held'>>;

async function heldNumbers(db: Db, numbers: string[]): Promise<string[]> {
  const rows = await db.selectFrom('incoming_numbers').select('phone_number').where('phone_number', 'in', numbers).execute();
  return rows.map((r) => r.phone_number);
}

/** Outbound messages per number. Messages are not stored in this build yet, so every number has sent none. */
async function messageTraffic(_db: Db, _numbers: string[], _now: number): Promise<Map<string, Counts>> {
  return new Map();
}

/** Verification sends per number. Verifications are not stored in this build yet, so none went to any number. */
async function verificationTraffic(_db: Db, _numbers: string[], _now: number): Promise<Map<string, Counts>> {
  return new Map();
}
