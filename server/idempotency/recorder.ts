// What an idempotent request hands its service: a way to record its response in the transaction of its work.
import type { Tx } from '../store/db.js';

/**
 * Given to the service behind an operation that takes Idempotency-Key (when the request carries one). The service
 * calls `record` with the body it answers, as the last write of the transaction that does the work: the work and its
 * replayable response then commit together, and a crash at any point leaves both or neither.
 */
export interface ResponseRecorder {
  record(tx: Tx, body: unknown): Promise<void>;
}
