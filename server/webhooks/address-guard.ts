// Refuses webhook targets on private, loopback, link-local and other non-public addresses (SSRF protection).
// The check runs in the socket's own DNS lookup, so a name cannot resolve to a public address for the check
// and a private one for the connection.
import dns from 'node:dns';
import net from 'node:net';

const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const blockList = new net.BlockList();
for (const [address, prefix] of BLOCKED_V4) blockList.addSubnet(address, prefix, 'ipv4');
blockList.addAddress('::', 'ipv6');
blockList.addAddress('::1', 'ipv6');
blockList.addSubnet('fc00::', 7, 'ipv6');
blockList.addSubnet('fe80::', 10, 'ipv6');
blockList.addSubnet('ff00::', 8, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blockList.check(mapped[1], 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return false;
  return blockList.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class PrivateAddressError extends Error {
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to the non-public address ${address} (set WEBHOOK_ALLOW_PRIVATE=true to allow)`);
  }
}

/** A `lookup` for http.request that fails on non-public addresses. */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses;
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateAddressError(hostname, bad.address), '', 4);
    if (options.all) return (callback as any)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
