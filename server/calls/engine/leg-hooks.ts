// What an area built on calls (the proxy's call relay) does at three moments of a leg's course, told by the engine
// in the transaction of that change: it may route an inbound leg before it rings, and it hears of the legs a Dial
// places and of every leg's end. A port like VerificationCallReports: the engine never imports that area.
import type { Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';

export interface LegHooks {
  /**
   * An inbound leg about to be stored and ring its holder: the leg to store, the same or with other instructions
   * (inline `twiml` instead of the number's `voice_url`).
   */
  inbound(tx: Tx, leg: CallRow): Promise<CallRow>;
  /** The Dial of `parent` placed `child` (stored, not yet dialed). */
  dialed(tx: Tx, parent: CallRow, child: CallRow): Promise<void>;
  /** The leg's final transition (its final row), after its final event. */
  ended(tx: Tx, leg: CallRow): Promise<void>;
}
