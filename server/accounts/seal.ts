// Sealing: AES-256-GCM under a key derived (HKDF-SHA256) from the server secret, bound to what the sealed value
// belongs to (its additional data, e.g. a sid), so a sealed value copied onto another row does not open. Used for
// what must be readable again and so cannot be hashed: resent OTP codes, webhook signing secrets, sandbox handsets.
import { createCipheriv, createDecipheriv, hkdfSync, randomFillSync } from 'node:crypto';

// IVs drawn from the system a few kilobytes at a time, each 12 bytes used once: an IV is public (it leads the sealed
// value) and needs only to be unique and unpredictable; a call into the CSPRNG per seal cost about as much as the
// cipher's setup (a verification sent seals twice).
const IV_BYTES = 12;
const ivPool = Buffer.alloc(IV_BYTES * 256);
let ivOffset = ivPool.length;

function nextIv(): Buffer {
  if (ivOffset === ivPool.length) {
    randomFillSync(ivPool);
    ivOffset = 0;
  }
  ivOffset += IV_BYTES;
  // A copy, not a view of the pool: a view would change under its holder at the next refill.
  return Buffer.from(ivPool.subarray(ivOffset - IV_BYTES, ivOffset));
}

/** A 256-bit key for one use of the server secret (`salt` and `info` name the use, so uses never share a key). */
export function sealKey(secret: string, salt: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, info, 32));
}

/** `iv.tag.ciphertext`, each in base64. */
export function seal(key: Buffer, boundTo: string, text: string): string {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo));
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64')).join('.');
}

/** Throws when the value was sealed under another key or for another `boundTo`, or was altered. */
export function unseal(key: Buffer, boundTo: string, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(boundTo));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
