// What a verification leg stores is sealed with the server secret: its instructions, its machine state (whose
// timeline holds what it said) and its recordings' segments all hold the code it speaks, and issue 20's rule is
// that no code is stored in clear. Every other leg stores them as they are.
import type { CallRow } from '../../store/schema.js';
import { seal, sealKey, unseal } from '../../accounts/seal.js';

type Leg = Pick<CallRow, 'sid' | 'purpose'>;

export class LegSeal {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = sealKey(serverSecret, 'telephony-calls', 'verification-leg-seal');
  }

  /** What to store for `text` of `leg` (bound to `part`, so a sealed value moved to another column does not open). */
  close(leg: Leg, part: string, text: string): string {
    return leg.purpose === 'verification' ? seal(this.key, `${leg.sid}:${part}`, text) : text;
  }

  /** The text stored by close(); throws for a value sealed under another server secret. */
  open(leg: Leg, part: string, stored: string): string {
    return leg.purpose === 'verification' ? unseal(this.key, `${leg.sid}:${part}`, stored) : stored;
  }
}
