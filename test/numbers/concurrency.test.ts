// Two (or more) requests for one number at the same moment: exactly one wins, the rest answer 409 number_unavailable.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { createTelephonyClient } from '../../client/index.js';
import { availableNumber } from './fixtures.js';
import { waitUntil } from '../support/wait.js';

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

// An address deleted while a number is being given it: the number's write reads it, then the DELETE commits before the
// write's foreign key check. Made certain on PostgreSQL by holding the address row until the write waits on it.
describe.runIf(ENGINES.includes('postgres'))('an address deleted under a number given it (postgres)', () => {
  const t = useTestServer({ engine: 'postgres' });

  it('answers 422 address_not_found to the provisioning and the update, writing nothing', async () => {
    const account = await t.newAccount('address-race');
    const newAddress = async () =>
      (
        await account.client.POST('/v1/addresses', {
          body: {
            customer_name: 'Example Ltd',
            street: '1 Main Street',
            city: 'Springfield',
            region: 'IL',
            postal_code: '62701',
            iso_country: 'US',
          },
        })
      ).data!.sid;
    /** Runs `request` while the address row is held, deletes the address under it, and answers what it answered. */
    const deletedUnder = async <T>(addressSid: string, request: () => Promise<T>): Promise<T> => {
      const holder = new pg.Client({
        connectionString: process.env.TEST_DATABASE_URL,
        options: `-c search_path=${t.config.databaseSchema}`,
      });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select 1 from addresses where sid = $1 for update', [addressSid]);
        const answer = request();
        // The number's write waits for the address row (its foreign key check), then finds it deleted.
        await waitUntil(async () => {
          const { rows } = await holder.query(
            'select 1 from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))',
          );
          return rows.length > 0 ? true : undefined;
        });
        await holder.query('delete from addresses where sid = $1', [addressSid]);
        await holder.query('commit');
        return await answer;
      } finally {
        await holder.end();
      }
    };

    const phoneNumber = await availableNumber(account.client);
    const first = await newAddress();
    const provisioned = await deletedUnder(first, () =>
      account.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber, AddressSid: first } }),
    );
    expect(provisioned.response.status).toBe(422);
    expect(provisioned.error).toMatchObject({ code: 'address_not_found' });
    expect((await account.client.GET('/v1/incoming-phone-numbers')).data!.data).toEqual([]);

    const { data: number } = await account.client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: phoneNumber },
    });
    const second = await newAddress();
    const updated = await deletedUnder(second, () =>
      account.client.POST('/v1/incoming-phone-numbers/{sid}', {
        params: { path: { sid: number!.sid } },
        body: { AddressSid: second },
      }),
    );
    expect(updated.response.status).toBe(422);
    expect(updated.error).toMatchObject({ code: 'address_not_found' });
    const { data: after } = await account.client.GET('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: number!.sid } },
    });
    expect(after!.address_sid).toBeNull();
  });
});
