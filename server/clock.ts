// The one clock of the domain: every reading of the current time in server/ goes through a Clock of the app
// instance (on its Store, and on each transaction as `tx.clock`), so that tests can move time instead of sleeping.
// Durations and real-time waits (pacing, latencies, backoffs) are no domain time: they use performance.now().

export interface Clock {
  /** Milliseconds since 1970, as Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

// Timestamps are ISO 8601 UTC strings with milliseconds everywhere (they sort as text in both databases).
export function nowIso(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** The clock's time `ms` from now (when a job is due). */
export function dateIn(clock: Clock, ms: number): Date {
  return new Date(clock.now() + ms);
}

/** The clock's time `ms` from now, as an ISO timestamp. */
export function isoIn(clock: Clock, ms: number): string {
  return dateIn(clock, ms).toISOString();
}
