// What this platform has seen of a set of numbers, gathered with one query per signal for the whole set
// (a batch of 1000 numbers costs the same few queries as one). Counts span every account: spam is a
// property of the number, not of who asks.
import type { Db } from '../store/db.js';
import { NOTHING_SEEN, type PlatformSignals } from './spam-score.js';

/** `now`: the app's clock, which the traffic windows (last hour, last day) end at. */
export async function gatherPlatformSignals(
  db: Db,
  numbers: string[],
  now: number,
): Promise<Map<string, PlatformSignals>> {
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

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const OUTBOUND = ['outbound-api', 'outbound-reply'] as const;
/** Final outcomes of an outbound message; `canceled` is not a delivery outcome, so it does not count. */
const FINISHED = ['delivered', 'read', 'undelivered', 'failed'] as const;
const FAILED = ['undelivered', 'failed'] as const;

/** Outbound messages from each number: volume and distinct recipients in the last hour, outcomes in the last day. */
async function messageTraffic(db: Db, numbers: string[], now: number): Promise<Map<string, Counts>> {
  const hourAgo = new Date(now - HOUR_MS).toISOString();
  const dayAgo = new Date(now - DAY_MS).toISOString();
  const [volume, outcomes] = await Promise.all([
    db
      .selectFrom('messages')
      .select((eb) => ['from_number', eb.fn.countAll<number>().as('sent'), eb.fn.count<number>('to_number').distinct().as('recipients')])
      .where('from_number', 'in', numbers)
      .where('direction', 'in', OUTBOUND)
      .where('date_created', '>=', hourAgo)
      .groupBy('from_number')
      .execute(),
    db
      .selectFrom('messages')
      .select((eb) => [
        'from_number',
        eb.fn.countAll<number>().as('finished'),
        eb.fn.sum<number>(eb.case().when('status', 'in', FAILED).then(1).else(0).end()).as('failed'),
      ])
      .where('from_number', 'in', numbers)
      .where('direction', 'in', OUTBOUND)
      .where('date_created', '>=', dayAgo)
      .where('status', 'in', FINISHED)
      .groupBy('from_number')
      .execute(),
  ]);
  const counts = new Map<string, Counts>();
  const entry = (n: string) => counts.get(n) ?? counts.set(n, {}).get(n)!;
  // PostgreSQL answers counts and sums as strings (bigint/numeric).
  for (const row of volume) Object.assign(entry(row.from_number), { outboundLastHour: Number(row.sent), recipientsLastHour: Number(row.recipients) });
  for (const row of outcomes) Object.assign(entry(row.from_number), { finishedLastDay: Number(row.finished), failedLastDay: Number(row.failed) });
  return counts;
}

/** Verification codes sent to each number in the last day, and how many of the verifications behind them were approved. */
async function verificationTraffic(db: Db, numbers: string[], now: number): Promise<Map<string, Counts>> {
  const dayAgo = new Date(now - DAY_MS).toISOString();
  const rows = await db
    .selectFrom('verification_sends as s')
    .innerJoin('verifications as v', 'v.sid', 's.verification_sid')
    .select((eb) => [
      's.to_number',
      eb.fn.countAll<number>().as('sends'),
      eb.fn.count<number>(eb.case().when('v.status', '=', 'approved').then(eb.ref('v.sid')).end()).distinct().as('approved'),
    ])
    .where('s.to_number', 'in', numbers)
    .where('s.date_sent', '>=', dayAgo)
    .groupBy('s.to_number')
    .execute();
  return new Map(rows.map((row) => [row.to_number, { verificationSendsLastDay: Number(row.sends), verificationsApprovedLastDay: Number(row.approved) }]));
}
