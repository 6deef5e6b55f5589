// At delivery the same policy decides again: a literal host before any connection, a name by every address it resolves
// to (in the socket's own lookup). Only loopback is ever reached: the receiver is on 127.0.0.1, the only name looked up
// is localhost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup, PrivateAddressError, type PrivateAddressPolicy } from '../../server/webhooks/address-guard.js';
import { postWebhook } from '../../server/webhooks/deliver.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const post = (url: string, privateAddresses: PrivateAddressPolicy) =>
  postWebhook(url, '{}', {}, { timeoutMs: 5000, privateAddresses });

function lookUp(policy: PrivateAddressPolicy, hostname: string) {
  return new Promise<{ error: Error | null; addresses: string[] }>((resolve) => {
    guardedLookup(policy)(hostname, { all: true }, (error, addresses) => {
      const list = Array.isArray(addresses) ? addresses.map((a) => a.address) : [];
      resolve({ error, addresses: list });
    });
  });
}

describe('the lookup guard', () => {
  it('lets localhost resolve under the loopback policy', async () => {
    const { error, addresses } = await lookUp('loopback', 'localhost');
    expect(error).toBeNull();
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(['127.0.0.1', '::1']).toContain(address);
  });

  it('fails the lookup of localhost when no private address is allowed, naming the address and why', async () => {
    const { error } = await lookUp('none', 'localhost');
    expect(error).toBeInstanceOf(PrivateAddressError);
    expect(error!.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  });
});

describe('a webhook attempt', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it.each(['127.0.0.1', 'localhost'])('reaches a receiver on %s under the loopback policy', async (host) => {
    const result = await post(`http://${host}:${receiver.port}/ok-${host}`, 'loopback');
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(receiver.all.map((r) => r.path)).toContain(`/ok-${host}`);
  });

  it.each([
    ['127.0.0.1', 'none', /^refused: the URL must not point at a loopback address \(127\.0\.0\.1\)$/],
    ['localhost', 'none', /^refused: the URL must not point at a loopback name \(localhost\)$/],
    ['[::ffff:127.0.0.1]', 'loopback', /^refused: the URL must not point at an IPv4-mapped address of a loopback/],
    ['0.0.0.0', 'loopback', /^refused: the URL must not point at an unspecified/],
    ['2130706433', 'none', /^refused: the URL must not point at a loopback address \(127\.0\.0\.1\)$/],
  ] as const)('to %s under the %s policy is refused for good, without a request', async (host, policy, why) => {
    const path = `/refused-${policy}-${host.replace(/\W/g, '')}`;
    const result = await post(`http://${host}:${receiver.port}${path}`, policy);
    expect(result).toMatchObject({ ok: false, status: null, permanent: true, error: expect.stringMatching(why) });
    expect(receiver.all.map((r) => r.path)).not.toContain(path);
  });
});
