// What this platform has seen of a set of numbers, gathered with one query per signal for the whole set
// (a batch of 1000 numbers costs the same few queries as one). Counts span every account: spam is a
// property of the number, not of who asks.
import type { Db } from '../store/db.js';
import { heldAmong } from '../numbers/store.js';
import { outboundOutcomesSince, outboundVolumeSince } from '../messages/store.js';
import { sendsAndApprovalsSince } from '../verify/store.js';
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
    heldAmong(db, unique),
    messageTraffic(db, unique, now),
    verificationTraffic(db, unique, now),
  ]);
  for (const number of held) signals.get(number)!.held = true;
  for (const [number, counts] of [...traffic, ...verifications]) Object.assign(signals.get(number)!, counts);
  return signals;
}

type Counts = Partial<Omit<PlatformSignals, 'held'>>;

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
    outboundVolumeSince(db, numbers, OUTBOUND, hourAgo),
    outboundOutcomesSince(db, numbers, OUTBOUND, FINISHED, FAILED, dayAgo),
  ]);
  const counts = new Map<string, Counts>();
  const entry = (n: string) => counts.get(n) ?? counts.set(n, {}).get(n)!;
  // PostgreSQL answers counts and sums as strings (bigint/numeric).
  for (const row of volume)
    Object.assign(entry(row.from_number), {
      outboundLastHour: Number(row.sent),
      recipientsLastHour: Number(row.recipients),
    });
  for (const row of outcomes)
    Object.assign(entry(row.from_number), { finishedLastDay: Number(row.finished), failedLastDay: Number(row.failed) });
  return counts;
}

/** Verification codes sent to each number in the last day, and how many of the verifications behind them were
 * approved. */
async function verificationTraffic(db: Db, numbers: string[], now: number): Promise<Map<string, Counts>> {
  const dayAgo = new Date(now - DAY_MS).toISOString();
  const rows = await sendsAndApprovalsSince(db, numbers, dayAgo);
  return new Map(
    rows.map((row) => [
      row.to_number,
      { verificationSendsLastDay: Number(row.sends), verificationsApprovedLastDay: Number(row.approved) },
    ]),
  );
}
