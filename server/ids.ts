// One module makes every identifier: a two-letter prefix and 32 lowercase hex digits.
import { randomBytes } from 'node:crypto';

export const SID_PREFIX = {
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

export function newSid(kind: SidKind): string {
  return SID_PREFIX[kind] + randomBytes(16).toString('hex');
}

export function isSid(kind: SidKind, value: string): boolean {
  return value.length === 34 && value.startsWith(SID_PREFIX[kind]) && /^[0-9a-f]{32}$/.test(value.slice(2));
}

/** A secret shown once to its owner: `prefix_` and 32 random bytes in base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}
