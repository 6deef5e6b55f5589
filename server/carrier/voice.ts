// The carrier's voice side: a call leg is handed to the network inside the transaction that places it, and what
// the network does with it (ringing, answered, busy ...) comes back later through a sink the domain provides
// (`VoiceReports`), so the carrier never calls up into the call engine. The domain decides what a number held on
// this platform does (as it does for messages): the network only rings and answers.
import type { Tx } from '../store/db.js';
import type { JobHandling } from '../jobs/job.js';
import type { Party } from '../calls/machine/types.js';

export interface OutboundLeg {
  sid: string;
  from: string;
  to: string;
  /** Seconds (call time) it may ring before the network gives up (`no-answer`). */
  timeoutS: number;
}

/** Who the network says answered, and how they act on the line (the sandbox's magic callees). */
export type Answerer = Exclude<Party, { kind: 'peer' }>;

export type VoiceReport =
  | { sid: string; status: 'ringing' }
  /** `answeredBy` is null for an inbound leg (the platform answers it). */
  | { sid: string; status: 'answered'; answeredBy: 'human' | 'machine_start' | null; party: Answerer }
  | { sid: string; status: 'busy' }
  | { sid: string; status: 'no-answer' }
  | { sid: string; status: 'failed'; errorCode: string; errorMessage: string };

export interface VoiceReports {
  callStatus(tx: Tx, report: VoiceReport): Promise<void>;
}

export interface VoiceCarrier {
  /** Hands an outbound leg to the network. */
  placeCall(tx: Tx, leg: OutboundLeg): Promise<void>;
  /** An inbound leg rings at the platform: the network reports it `answered` once it has rung. */
  ringInbound(tx: Tx, sid: string): Promise<void>;
  /** How many times faster than real time calls play (SANDBOX_CALL_SPEED; 1 on a real network). */
  readonly speed: number;
  /** What a leg of `durationS` seconds costs (0 when never answered). */
  price(leg: { to: string; direction: 'inbound' | 'outbound' }, durationS: number): { price: number; unit: string };
  /** The carrier's background work for calls, reporting into `reports`. */
  voiceJobHandlers(reports: VoiceReports): JobHandling[];
}
