// Which IP addresses the API may call: the one table of non-public ranges, used when a URL is given (its literal
// host, url-policy.ts) and at delivery (every address a name resolves to). The delivery check runs in the socket's own
// DNS lookup, so a name cannot resolve to a public address for the check and a private one for the connection.
import dns from 'node:dns';
import net from 'node:net';

/** Who may be called on non-public addresses: everyone (`all`), loopback receivers only, or no one. */
export type PrivateAddressPolicy = 'all' | 'loopback' | 'none';

/** Why an address is not public; `loopback` marks the ranges a local receiver listens on. */
export interface AddressClass {
  reason: string;
  loopback: boolean;
}

interface Range {
  base: bigint;
  prefix: number;
  bits: 32 | 128;
  reason: string;
  loopback?: boolean;
}

const v4 = (cidr: string, reason: string, loopback = false): Range => {
  const [address, prefix] = cidr.split('/');
  return { base: parseV4(address), prefix: Number(prefix), bits: 32, reason, loopback };
};
const v6 = (cidr: string, reason: string, loopback = false): Range => {
  const [address, prefix] = cidr.split('/');
  return { base: parseV6(address)!, prefix: Number(prefix), bits: 128, reason, loopback };
};

// IANA's special-purpose registries (RFC 6890 and successors); the first range that matches names the reason.
const V4_RANGES: Range[] = [
  v4('0.0.0.0/8', 'an unspecified ("this network") address'),
  v4('10.0.0.0/8', 'a private address'),
  v4('100.64.0.0/10', 'a carrier-grade NAT (shared) address'),
  v4('127.0.0.0/8', 'a loopback address', true),
  v4('169.254.0.0/16', 'a link-local address'),
  v4('172.16.0.0/12', 'a private address'),
  v4('192.0.0.0/24', 'an IETF protocol assignment'),
  v4('192.0.2.0/24', 'a documentation address'),
  v4('192.31.196.0/24', 'an AS112 anycast address'),
  v4('192.52.193.0/24', 'an AMT anycast address'),
  v4('192.88.99.0/24', 'a 6to4 relay anycast address'),
  v4('192.168.0.0/16', 'a private address'),
  v4('192.175.48.0/24', 'an AS112 anycast address'),
  v4('198.18.0.0/15', 'a benchmarking address'),
  v4('198.51.100.0/24', 'a documentation address'),
  v4('203.0.113.0/24', 'a documentation address'),
  v4('224.0.0.0/4', 'a multicast address'),
  v4('240.0.0.0/4', 'a reserved address'),
];

const MAPPED = v6('::ffff:0:0/96', 'an IPv4-mapped address');
const V6_RANGES: Range[] = [
  v6('::/128', 'an unspecified address'),
  v6('::1/128', 'a loopback address', true),
  v6('::/96', 'an IPv4-compatible address'),
  v6('64:ff9b::/96', 'a NAT64 address'),
  v6('64:ff9b:1::/48', 'a local NAT64 address'),
  v6('100::/64', 'a discard-only address'),
  v6('2001:db8::/32', 'a documentation address'),
  v6('2001:2::/48', 'a benchmarking address'),
  v6('2001::/23', 'an IETF protocol assignment (Teredo, ORCHID and others)'),
  v6('2002::/16', 'a 6to4 address'),
  v6('3fff::/20', 'a documentation address'),
  v6('5f00::/16', 'an SRv6 segment identifier'),
  v6('fc00::/7', 'a unique-local address'),
  v6('fe80::/10', 'a link-local address'),
  v6('fec0::/10', 'a site-local address'),
  v6('ff00::/8', 'a multicast address'),
  // Only 2000::/3 is allocated for global unicast; the rest of the space is reserved.
  v6('::/0', 'a reserved address'),
];
const GLOBAL_UNICAST = v6('2000::/3', 'global unicast');

function parseV4(address: string): bigint {
  return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

/** The 128-bit value of an IPv6 address (with or without an embedded IPv4 tail or a zone), or null. */
function parseV6(address: string): bigint | null {
  const plain = address.replace(/%.*$/, '');
  if (!net.isIPv6(plain)) return null;
  let text = plain;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = parseV4(tail[1]);
    text = text.slice(0, -tail[1].length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const groups =
    rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

const inRange = (value: bigint, range: Range) => {
  const shift = BigInt(range.bits - range.prefix);
  return value >> shift === range.base >> shift;
};

const classOf = (range: Range): AddressClass => ({ reason: range.reason, loopback: range.loopback ?? false });

/** Why `address` (an IPv4 or IPv6 literal, without brackets) is not a public address, or null when it is public. */
export function classifyAddress(address: string): AddressClass | null {
  if (net.isIPv4(address)) {
    const range = V4_RANGES.find((r) => inRange(parseV4(address), r));
    return range ? classOf(range) : null;
  }
  const value = parseV6(address);
  if (value === null) return null;
  if (inRange(value, MAPPED)) {
    // The embedded IPv4 address decides; even a mapped loopback is not a spelling a local receiver needs.
    const inner = V4_RANGES.find((r) => inRange(value & 0xffffffffn, r));
    return inner ? { reason: `an IPv4-mapped address of ${inner.reason}`, loopback: false } : null;
  }
  const range = V6_RANGES.find((r) => inRange(value, r) && (r.prefix > 0 || !inRange(value, GLOBAL_UNICAST)));
  return range ? classOf(range) : null;
}

export function isPrivateAddress(address: string): boolean {
  return classifyAddress(address) !== null;
}

/** Why the policy refuses to call `address`, or null when it may be called. */
export function refusedAddress(address: string, policy: PrivateAddressPolicy): string | null {
  if (policy === 'all') return null;
  const found = classifyAddress(address);
  if (!found || (found.loopback && policy === 'loopback')) return null;
  return found.reason;
}

export class PrivateAddressError extends Error {
  constructor(host: string, address: string, reason: string) {
    super(`refused: ${host} resolves to ${address}, ${reason} (WEBHOOK_ALLOW_PRIVATE decides which are allowed)`);
  }
}

/** A `lookup` for http.request that fails when a name resolves to an address the policy refuses. */
export function guardedLookup(policy: PrivateAddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      for (const a of addresses) {
        const reason = refusedAddress(a.address, policy);
        if (reason) return callback(new PrivateAddressError(hostname, a.address, reason), '', 4);
      }
      if (options.all) return (callback as any)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
