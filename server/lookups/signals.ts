// What this platform has seen of a set of numbers, gathered with one statement for the whole set (a batch of 1000
// numbers costs the same one statement as one number; store.ts). Counts span every account: spam is a property of
// the number, not of who asks.
import type { Db } from '../store/db.js';
import { signalRows, type Outbound } from './store.js';
import { NOTHING_SEEN, type PlatformSignals } from './spam-score.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const OUTBOUND: Outbound = {
  directions: ['outbound-api', 'outbound-reply'],
  /** Final outcomes of an outbound message; `canceled` is not a delivery outcome, so it does not count. */
  finished: ['delivered', 'read', 'undelivered', 'failed'],
  failed: ['undelivered', 'failed'],
};

/**
 * `now`: the app's clock, which the traffic windows end at: outbound messages from each number (volume and distinct
 * recipients in the last hour, outcomes in the last day), verification codes sent to it in the last day and how many
 * of the verifications behind them were approved.
 */
export async function gatherPlatformSignals(
  db: Db,
  numbers: string[],
  now: number,
): Promise<Map<string, PlatformSignals>> {
  const unique = [...new Set(numbers)];
  const signals = new Map<string, PlatformSignals>(unique.map((n) => [n, { ...NOTHING_SEEN }]));
  if (unique.length === 0) return signals;
  const hourAgo = new Date(now - HOUR_MS).toISOString();
  const dayAgo = new Date(now - DAY_MS).toISOString();
  // PostgreSQL answers counts and sums as strings (bigint/numeric).
  for (const row of await signalRows(db, unique, OUTBOUND, hourAgo, dayAgo)) {
    const seen = signals.get(row.number)!;
    if (row.kind === 'held') seen.held = true;
    else if (row.kind === 'volume') {
      seen.outboundLastHour = Number(row.a);
      seen.recipientsLastHour = Number(row.b);
    } else if (row.kind === 'outcomes') {
      seen.finishedLastDay = Number(row.a);
      seen.failedLastDay = Number(row.b);
    } else {
      seen.verificationSendsLastDay = Number(row.a);
      seen.verificationsApprovedLastDay = Number(row.b);
    }
  }
  return signals;
}
