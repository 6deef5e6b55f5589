// The call engine's durable jobs. A leg's course is one `call.run` job at a time that matters: each carries the
// leg's step when scheduled, and finishes without effect when the leg has moved on since.
import { defineJob } from '../../jobs/job.js';
import type { HttpMethod } from '../twiml/verbs.js';

export const CALL_RUN_JOB = defineJob<{ sid: string; step: number }>('call.run');

/**
 * Fetches a leg's instructions for the machine, which takes them if it still waits for `requestId` (other events,
 * such as input heard, may have moved the leg's step on meanwhile).
 */
export interface FetchPayload {
  sid: string;
  step: number;
  requestId: string;
  url: string;
  method: HttpMethod;
  params: Record<string, string>;
}

export const CALL_FETCH_JOB = defineJob<FetchPayload>('call.fetch');

/** Renders a recording's audio: the call time window [fromMs, toMs) of its segments. */
export const RECORDING_JOB = defineJob<{ sid: string; fromMs: number; toMs: number }>('call.recording');
