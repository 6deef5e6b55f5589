// ADDRESS_VERIFICATION_DELAY: a business day in production, seconds in development, checked at start; the delay
// passes on the server's clock (a TestClock here, moved over a weekend).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { verificationTime } from '../../server/addresses/verification.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { TestClock } from '../support/clock.js';
import { waitUntil } from '../support/wait.js';
import { submitAddress } from '../numbers/fixtures.js';

describe('address verification delay', () => {
  it('defaults to 1 business day in production and 5 seconds otherwise', () => {
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 's'.repeat(40) }).addressVerificationDelay).toEqual({
      businessDays: 1,
    });
    expect(loadConfig({}).addressVerificationDelay).toEqual({ ms: 5000 });
    expect(loadConfig({ NODE_ENV: 'test' }).addressVerificationDelay).toEqual({ ms: 5000 });
  });

  it.each([
    ['250ms', { ms: 250 }],
    ['5s', { ms: 5000 }],
    ['10m', { ms: 600_000 }],
    ['2h', { ms: 7_200_000 }],
    ['1d', { ms: 86_400_000 }],
    ['3bd', { businessDays: 3 }],
  ])('reads %s', (raw, want) => {
    expect(loadConfig({ ADDRESS_VERIFICATION_DELAY: raw }).addressVerificationDelay).toEqual(want);
  });

  it.each(['soon', '5', '-1s', '1.5h', '1w'])('refuses %s with a clear message', (raw) => {
    expect(() => loadConfig({ ADDRESS_VERIFICATION_DELAY: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ ADDRESS_VERIFICATION_DELAY: raw })).toThrow(
      /ADDRESS_VERIFICATION_DELAY must be a number with a unit/,
    );
  });

  it.each([
    ['a Monday', '2025-06-02T09:30:00.000Z', 1, '2025-06-03T09:30:00.000Z'],
    ['a Friday', '2025-06-06T09:30:00.000Z', 1, '2025-06-09T09:30:00.000Z'],
    ['a Saturday', '2025-06-07T09:30:00.000Z', 1, '2025-06-09T09:30:00.000Z'],
    ['a Thursday, 3 days', '2025-06-05T17:00:00.000Z', 3, '2025-06-10T17:00:00.000Z'],
  ])('counts business days from %s', (_, from, businessDays, want) => {
    expect(verificationTime({ businessDays }, new Date(from)).toISOString()).toBe(want);
  });
});

describe.each(ENGINES)('address verification on the server clock (%s)', (engine) => {
  const clock = new TestClock();
  clock.set('2025-06-06T09:30:00.000Z');
  const t = useTestServer({ engine, env: { ADDRESS_VERIFICATION_DELAY: '1bd' }, clock });

  it('verifies an address submitted on a Friday on Monday, a business day later, not before', async () => {
    const { client } = t.account;
    const created = await submitAddress(client, 'DE');
    expect(created.status).toBe('pending');
    const get = async () => (await client.GET('/v1/addresses/{sid}', { params: { path: { sid: created.sid } } })).data!;
    clock.set('2025-06-08T23:00:00.000Z');
    expect(await get()).toMatchObject({ status: 'pending', date_updated: created.date_created });
    clock.set('2025-06-09T09:31:00.000Z');
    const settled = await waitUntil(async () => ((await get()).status === 'pending' ? undefined : get()));
    expect(settled).toMatchObject({ sid: created.sid, status: 'verified', rejection_reason: null });
    // Settled by the job on the clock's Monday (Friday + 3 days), never on the weekend.
    expect(Date.parse(settled.date_updated)).toBeGreaterThanOrEqual(Date.parse(created.date_created) + 3 * 86_400_000);
  });
});
