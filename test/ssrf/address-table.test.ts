// The one table of non-public ranges and the URL policy, as functions: no test here opens a connection or looks a
// name up. Each range has an address inside it and one just outside.
import { describe, expect, it } from 'vitest';
import { classifyAddress, refusedAddress } from '../../server/webhooks/address-guard.js';
import { checkUrl } from '../../server/webhooks/url-policy.js';
import { loadConfig } from '../../server/config.js';

// [range, first address, last address, an address just outside (public), the reason it is refused]
const RANGES: [string, string, string, string, RegExp][] = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255', '1.0.0.0', /unspecified/],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255', '11.0.0.0', /private/],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255', '100.128.0.0', /carrier-grade NAT/],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255', '128.0.0.0', /loopback/],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255', '169.255.0.0', /link-local/],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255', '172.32.0.0', /private/],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255', '192.0.1.0', /IETF protocol/],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255', '192.0.3.0', /documentation/],
  ['192.31.196.0/24', '192.31.196.0', '192.31.196.255', '192.31.197.0', /AS112/],
  ['192.52.193.0/24', '192.52.193.0', '192.52.193.255', '192.52.194.0', /AMT/],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255', '192.88.100.0', /6to4 relay/],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255', '192.169.0.0', /private/],
  ['192.175.48.0/24', '192.175.48.0', '192.175.48.255', '192.175.49.0', /AS112/],
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255', '198.20.0.0', /benchmarking/],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255', '198.51.101.0', /documentation/],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255', '203.0.114.0', /documentation/],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.255', '223.255.255.255', /multicast/],
  ['240.0.0.0/4 (and broadcast)', '240.0.0.0', '255.255.255.255', '223.255.255.254', /reserved/],
  ['::/128', '::', '::', '2000::', /unspecified/],
  ['::1/128', '::1', '::1', '2000::1', /loopback/],
  ['::/96 (IPv4-compatible)', '::2', '::255.255.255.255', '2000::2', /IPv4-compatible/],
  ['64:ff9b::/96 (NAT64)', '64:ff9b::', '64:ff9b::ffff:ffff', '2001:4860::8888', /NAT64/],
  ['64:ff9b:1::/48 (local NAT64)', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', '2600::1', /NAT64/],
  ['100::/64', '100::', '100::ffff:ffff:ffff:ffff', '2a00::1', /discard-only/],
  ['2001::/23', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2001:200::', /IETF protocol/],
  ['2001:2::/48', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff', '2001:200::1', /benchmarking/],
  ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::', /documentation/],
  ['2002::/16 (6to4)', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2003::', /6to4/],
  ['3fff::/20', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff:1000::', /documentation/],
  ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '3ffe::1', /SRv6/],
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff:ffff::1', /unique-local/],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2606:4700::1111', /link-local/],
  ['fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2a03:2880::1', /site-local/],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2c0f:fb50::1', /multicast/],
  ['outside 2000::/3', '4000::', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '3ffe:ffff::1', /reserved/],
];

describe('the range table', () => {
  it.each(RANGES)(
    '%s: refuses its first and last address, not the public one beside it',
    (_, first, last, out, why) => {
      expect(classifyAddress(first)?.reason).toMatch(why);
      expect(classifyAddress(last)?.reason).toMatch(why);
      expect(classifyAddress(out)).toBeNull();
    },
  );

  it.each([
    ['::ffff:127.0.0.1', /IPv4-mapped address of a loopback/],
    ['::ffff:7f00:1', /IPv4-mapped address of a loopback/],
    ['::ffff:10.1.2.3', /IPv4-mapped address of a private/],
    ['::ffff:169.254.169.254', /IPv4-mapped address of a link-local/],
    ['::ffff:0.0.0.0', /IPv4-mapped address of an unspecified/],
  ])('judges the IPv4-mapped %s by its embedded IPv4 address', (address, why) => {
    expect(classifyAddress(address)?.reason).toMatch(why);
  });

  it.each(['::ffff:8.8.8.8', '::ffff:93.184.216.34', '8.8.8.8', '93.184.216.34', '2606:4700::1111', '2a00:1450::1'])(
    'finds %s public',
    (address) => {
      expect(classifyAddress(address)).toBeNull();
    },
  );

  it('marks only 127.0.0.0/8 and ::1 as loopback, so the loopback policy allows them and nothing else', () => {
    expect(refusedAddress('127.0.0.1', 'loopback')).toBeNull();
    expect(refusedAddress('127.255.0.9', 'loopback')).toBeNull();
    expect(refusedAddress('::1', 'loopback')).toBeNull();
    expect(refusedAddress('::ffff:127.0.0.1', 'loopback')).toMatch(/IPv4-mapped/);
    expect(refusedAddress('0.0.0.0', 'loopback')).toMatch(/unspecified/);
    expect(refusedAddress('10.0.0.1', 'loopback')).toMatch(/private/);
    expect(refusedAddress('127.0.0.1', 'none')).toMatch(/loopback/);
    expect(refusedAddress('::1', 'none')).toMatch(/loopback/);
    expect(refusedAddress('10.0.0.1', 'all')).toBeNull();
  });
});

describe('the URL policy', () => {
  it.each([
    // The odd IPv4 spellings WHATWG URL normalises to a dotted quad
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://167772161/', '10.0.0.1'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
    ['http://0/', '0.0.0.0'],
  ])('reads %s as %s', (url, host) => {
    expect(new URL(url).hostname).toBe(host);
  });

  it.each([
    ['http://2130706433/cb', /loopback address \(127\.0\.0\.1\)/],
    ['http://0x7f.1/cb', /loopback address \(127\.0\.0\.1\)/],
    ['http://[::1]:8080/cb', /loopback address \(::1\)/],
    ['http://localhost:8080/cb', /loopback name/],
    ['http://LOCALHOST./cb', /loopback name/],
    ['http://api.localhost/cb', /loopback name/],
  ])('refuses loopback %s when no private address is allowed', (url, why) => {
    expect(checkUrl(url, 'none')).toMatch(why);
    expect(checkUrl(url, 'loopback')).toBeNull();
    expect(checkUrl(url, 'all')).toBeNull();
  });

  it.each([
    ['http://10.0.0.1/cb', /private address/],
    ['http://167772161/cb', /private address \(10\.0\.0\.1\)/],
    ['http://0xa9.0xfe.0xa9.0xfe/latest/meta-data', /link-local address \(169\.254\.169\.254\)/],
    ['http://[::ffff:127.0.0.1]/cb', /IPv4-mapped address of a loopback address/],
    ['http://[::ffff:a00:1]/cb', /IPv4-mapped address of a private address/],
    ['https://[fd00::1]/cb', /unique-local/],
    ['http://[fe80::1]/cb', /link-local/],
    ['http://[64:ff9b::a00:1]/cb', /NAT64/],
    ['http://[2002:a00:1::]/cb', /6to4/],
    ['http://[::a00:1]/cb', /IPv4-compatible/],
    ['http://[fec0::1]/cb', /site-local/],
    ['http://[ff02::1]/cb', /multicast/],
    ['http://0.0.0.0:3000/cb', /unspecified/],
    ['http://100.64.0.1/cb', /carrier-grade NAT/],
    ['http://198.18.0.1/cb', /benchmarking/],
    ['http://192.0.2.1/cb', /documentation/],
    ['http://239.1.1.1/cb', /multicast/],
  ])('refuses %s under every policy but all', (url, why) => {
    expect(checkUrl(url, 'loopback')).toMatch(why);
    expect(checkUrl(url, 'none')).toMatch(why);
    expect(checkUrl(url, 'all')).toBeNull();
  });

  it.each([
    ['ftp://example.com/file', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['gopher://127.0.0.1:6379/_INFO', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['http://user:pass@example.com/cb', /user name or password/],
    ['http://user@example.com/cb', /user name or password/],
    ['not a url', /not a valid absolute URL/],
  ])('refuses %s whatever the policy', (url, why) => {
    for (const policy of ['all', 'loopback', 'none'] as const) expect(checkUrl(url, policy)).toMatch(why);
  });

  it.each(['https://app.example.com/webhooks/sms', 'http://8.8.8.8/cb', 'https://[2606:4700::1111]/cb'])(
    'accepts the public %s under every policy (names are judged at delivery, by what they resolve to)',
    (url) => {
      for (const policy of ['all', 'loopback', 'none'] as const) expect(checkUrl(url, policy)).toBeNull();
    },
  );
});

describe('WEBHOOK_ALLOW_PRIVATE', () => {
  it('allows loopback only by default in development and test, whatever the carrier', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe('loopback');
    expect(loadConfig({ NODE_ENV: 'development' }).webhookAllowPrivate).toBe('loopback');
    expect(loadConfig({ NODE_ENV: 'test', CARRIER: 'sandbox' }).webhookAllowPrivate).toBe('loopback');
  });

  it('allows none by default in production, with the sandbox carrier too', () => {
    const production = { NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(48) };
    expect(loadConfig(production).webhookAllowPrivate).toBe('none');
    expect(loadConfig({ ...production, CARRIER: 'sandbox' }).webhookAllowPrivate).toBe('none');
  });

  it('reads true as all, loopback as loopback and false as none, in production too', () => {
    for (const NODE_ENV of ['development', 'production']) {
      const env = { NODE_ENV, SECRET_KEY: 'k'.repeat(48) };
      expect(loadConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe('all');
      expect(loadConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: 'loopback' }).webhookAllowPrivate).toBe('loopback');
      expect(loadConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe('none');
    }
  });

  it('refuses any other value, naming the setting', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(
      'WEBHOOK_ALLOW_PRIVATE must be true, loopback or false, got "yes"',
    );
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'constructor' })).toThrow(/WEBHOOK_ALLOW_PRIVATE must be/);
  });
});
