// The one clock of the domain: every reading of the current time in server/ goes through a Clock of the app
// instance (on its Store, and on each transaction as `tx.clock`), so that tests can move time instead of sleeping.
// Durations and real-time waits (pacing, latencies, backoffs) are no domain time: they use performance.now().

export interface Clock {
  /** Milliseconds since 1970, as Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Leases (how long a worker or a request may hold work before it is taken for dead) are real time that instances
 * compare through one database, not the domain's: a test moving its clock must not take work in flight for lost.
 */
export function leaseUntil(ms: number): string {
  return isoOf(systemClock.now() + ms);
}

/** Now in the time leases are kept in (see leaseUntil). */
export function leaseNow(): string {
  return isoOf(systemClock.now());
}

// Timestamps are ISO 8601 UTC strings with milliseconds everywhere (they sort as text in both databases).
export function nowIso(clock: Clock): string {
  return isoOf(clock.now());
}

// The last instant written out: under load, many readings in a row fall in the same millisecond.
let lastMs = Number.NaN;
let lastIso = '';

function isoOf(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** The clock's time `ms` from now (when a job is due). */
export function dateIn(clock: Clock, ms: number): Date {
  return new Date(clock.now() + ms);
}

/** The clock's time `ms` from now, as an ISO timestamp. */
export function isoIn(clock: Clock, ms: number): string {
  return dateIn(clock, ms).toISOString();
}
