// One-time codes: drawn from the CSPRNG, kept as an HMAC keyed with the server secret and compared in constant
// time. A pending verification also keeps its code sealed (AES-256-GCM, key derived from the same secret) so a
// re-send can repeat it; the sealed copy is dropped when the verification ends. Nothing here logs or throws a code.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { seal, sealKey, unseal } from '../accounts/seal.js';

export function newCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i++) code += String(randomInt(10));
  return code;
}

export class CodeKeeper {
  private readonly sealKey: Buffer;

  constructor(private readonly secret: string) {
    this.sealKey = sealKey(secret, 'telephony-verify', 'otp-resend-seal');
  }

  /** Bound to the verification's sid, so equal codes of two verifications hash differently. */
  hash(sid: string, code: string): string {
    return createHmac('sha256', this.secret).update(`${sid}:${code}`).digest('base64');
  }

  matches(sid: string, code: string, storedHash: string): boolean {
    const expected = Buffer.from(storedHash, 'base64');
    const given = Buffer.from(this.hash(sid, code), 'base64');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  seal(sid: string, code: string): string {
    return seal(this.sealKey, sid, code);
  }

  /** The sealed code, or null when there is none or it was sealed under another secret. */
  tryUnseal(sid: string, sealed: string | null): string | null {
    if (!sealed) return null;
    try {
      return this.unseal(sid, sealed);
    } catch {
      return null;
    }
  }

  unseal(sid: string, sealed: string): string {
    return unseal(this.sealKey, sid, sealed);
  }
}
