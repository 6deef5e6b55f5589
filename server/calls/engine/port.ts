// What the calls service (the API side) asks of the call engine (the side that runs calls: dialing through the
// carrier, the machine, fetches, recordings, events). Every method runs inside the caller's transaction.
import type { Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';
import type { HttpMethod } from '../twiml/verbs.js';
import type { JobHandling } from '../../jobs/job.js';

export type CallInput = { digits: string } | { speech: string };

export interface CallEngine {
  /** A new call row (status `queued`, inserted by the caller in `tx`) starts: dialing is scheduled. */
  place(tx: Tx, call: CallRow): Promise<void>;
  /**
   * A call from outside number `from` to `to`, a number held on this platform (the caller checked it): the
   * inbound leg is created for its holder and answered by its voice_url (or as the LegHooks route it: a proxy
   * session's bridge). Returns the new row; throws `to_number_not_owned` when `to` was released since the check.
   */
  receive(tx: Tx, from: string, to: string): Promise<CallRow>;
  /**
   * Ends a live call for the API: `canceled` (queued or ringing only) or `completed` (hangs up, or cancels a call
   * not answered yet). Throws `call_not_modifiable` when that does not apply. Returns the row after the change.
   */
  end(tx: Tx, call: CallRow, status: 'canceled' | 'completed'): Promise<CallRow>;
  /** New instructions: at once for an in-progress call, at the answer otherwise. Throws `call_not_modifiable`. */
  redirect(tx: Tx, call: CallRow, change: { url: string; method: HttpMethod } | { twiml: string }): Promise<CallRow>;
  /** The other end presses digits or speaks now (sandbox). Throws `call_not_modifiable` unless in-progress. */
  input(tx: Tx, call: CallRow, input: CallInput): Promise<CallRow>;
  jobHandlers(): JobHandling[];
  /** Stops what the engine runs beside its jobs (the recordings' renderer thread), once no job runs. */
  close(): Promise<void>;
}
