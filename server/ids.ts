// One module makes every identifier: a two-letter prefix and 32 lowercase hex digits.
import { randomBytes, randomFillSync } from 'node:crypto';

// Random bytes for identifiers, drawn from the system a few kilobytes at a time (not for secrets: see newSecret).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += bytes;
  return pool.toString('hex', poolOffset - bytes, poolOffset);
}

/**
 * 32 hex digits, time-ordered like a UUIDv7: the first 12 are the milliseconds since 1970, the other 20 random
 * (80 bits). Records made one after another get keys that sort one after another, so a busy table's primary
 * key and the indexes that include it grow at their end: each commit rewrites a few pages instead of one page
 * per new row scattered across the whole index (about half the database's write cost under the message load).
 */
export function timeOrderedHex(now: number): string {
  return timePrefixHex(now) + randomHex(10);
}

/** The time part of timeOrderedHex: keys made before `ms` sort below it, those made at `ms` or later above. */
export function timePrefixHex(ms: number): string {
  return ms.toString(16).padStart(12, '0').slice(-12);
}

const SID_PREFIX = {
  account: 'AC',
  message: 'SM',
  verification: 'VE',
  incomingNumber: 'PN',
  call: 'CA',
  recording: 'RE',
  proxySession: 'KC',
  proxyParticipant: 'KP',
  proxyInteraction: 'KI',
  address: 'AD',
  apiKey: 'SK',
} as const;

export type SidKind = keyof typeof SID_PREFIX;

/** A new sid made at `now` (ms, by the app's clock: sids sort by the time the domain made them). */
export function newSid(kind: SidKind, now: number): string {
  return SID_PREFIX[kind] + timeOrderedHex(now);
}

export function isSid(kind: SidKind, value: string): boolean {
  return value.length === 34 && value.startsWith(SID_PREFIX[kind]) && /^[0-9a-f]{32}$/.test(value.slice(2));
}

/** A secret shown once to its owner: `prefix_` and 32 random bytes in base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * The sid of the `kind` record there is at most one of per record `sid` (a call's proxy interaction, per inbound
 * leg): the same 32 digits under its own prefix, so it is found from that sid by its primary key, and made once.
 */
export function sidFor(kind: SidKind, sid: string): string {
  return SID_PREFIX[kind] + sid.slice(2);
}
