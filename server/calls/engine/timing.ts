// Call time: the sandbox plays calls SANDBOX_CALL_SPEED times faster than real time, and everything a call reports
// (durations, the machine's clock) is in call time, counted from the answer.
import type { CallRow } from '../../store/schema.js';

/** Call time (ms) elapsed since the leg was answered, at `now` (0 before the answer). */
export function callTimeMs(row: Pick<CallRow, 'start_time'>, now: number, speed: number): number {
  return row.start_time ? Math.max(0, (now - Date.parse(row.start_time)) * speed) : 0;
}

/** The real moment at which call time `callMs` comes for an answered leg. */
export function momentOf(row: Pick<CallRow, 'start_time'>, callMs: number, speed: number): Date {
  return new Date(Date.parse(row.start_time!) + Math.ceil(callMs / speed));
}

/** Whole seconds of call time, rounded up. */
export function wholeSeconds(ms: number): number {
  return Math.ceil(Math.round(ms) / 1000);
}
