// One-time codes: drawn from the CSPRNG, kept as an HMAC keyed with the server secret and compared in constant
// time. A pending verification also keeps its code sealed (AES-256-GCM, key derived from the same secret) so a
// re-send can repeat it; the sealed copy is dropped when the verification ends. Nothing here logs or throws a code.
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

export function newCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i++) code += String(randomInt(10));
  return code;
}

export class CodeKeeper {
  private readonly sealKey: Buffer;

  constructor(private readonly secret: string) {
    this.sealKey = Buffer.from(hkdfSync('sha256', secret, 'telephony-verify', 'otp-resend-seal', 32));
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
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(sid));
    const data = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64')).join('.');
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
    const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64'));
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, iv);
    decipher.setAAD(Buffer.from(sid));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  }
}
