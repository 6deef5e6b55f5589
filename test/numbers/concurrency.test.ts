// Two (or more) requests for one number at the same moment: exactly one wins, the rest answer 409 number_unavailable.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { createTelephonyClient } from '../../client/index.js';
import { availableNumber } from './fixtures.js';

describe.each(ENGINES)('concurrent provisioning (%s)', (engine) => {
  const t = useTestServer({ engine });

  it('gives a number to exactly one of two accounts asking at once', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await t.newAccount('a');
      const b = await t.newAccount('b');
      const phoneNumber = await availableNumber(a.client);
      const [ra, rb] = await Promise.all(
        [a, b].map((x) => x.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } })),
      );
      expect([ra.response.status, rb.response.status].sort()).toEqual([201, 409]);
      const loser = ra.response.status === 409 ? ra : rb;
      expect(loser.error).toMatchObject({ status: 409, code: 'number_unavailable' });
    }
  });

  it('gives a number to exactly one of eight requests at once, even from one account', async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, (_, i) => t.newAccount(`racer-${i}`)));
    const phoneNumber = await availableNumber(accounts[0].client, 'CA');
    const clients = accounts.flatMap((a) => [
      a.client,
      createTelephonyClient({ baseUrl: t.directUrl, apiKey: a.apiKey, encoding: 'form' }),
    ]);
    const results = await Promise.all(
      clients.map((c) => c.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } })),
    );
    const statuses = results.map((r) => r.response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const rows = await t.server.services.store.db
      .selectFrom('incoming_numbers')
      .select('account_sid')
      .where('phone_number', '=', phoneNumber)
      .execute();
    expect(rows).toHaveLength(1);
  });
});
