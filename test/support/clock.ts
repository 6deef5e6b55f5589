// A clock a test moves: the system's time plus an offset, so that the server's work keeps flowing in real time
// while a test jumps over an expiry, a send_at or a retention period instead of sleeping through it. A stopped clock
// (`new TestClock({ stopped: true })`) moves only when the test moves it: for a test that reads exact durations (a
// Retry-After) and would otherwise see the real seconds a loaded machine takes between two requests.
import type { Clock } from '../../server/clock.js';

export class TestClock implements Clock {
  private offset = 0;
  private readonly stoppedAt: number | undefined;

  constructor(options: { stopped?: boolean } = {}) {
    this.stoppedAt = options.stopped ? Date.now() : undefined;
  }

  now(): number {
    return (this.stoppedAt ?? Date.now()) + this.offset;
  }

  /** Moves time forward by `ms` (the worker polls every JOB_POLL_MS, so jobs due by then run within a poll). */
  advance(ms: number): void {
    if (ms < 0) throw new Error('a test clock only moves forward');
    this.offset += ms;
  }

  /** Sets the time to `iso` (from then on it runs on from there, unless stopped). */
  set(iso: string): void {
    this.offset = Date.parse(iso) - (this.stoppedAt ?? Date.now());
  }
}
