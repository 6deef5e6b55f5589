// The addresses API: submitted pending, settled by the verification job, listed, fetched and deleted.
import { describe, expect, it } from 'vitest';
import { ENGINES, startTestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createTelephonyClient } from '../../client/index.js';
import { useAddressServer, numberOnAddress, settledAddress, submitAddress } from '../numbers/fixtures.js';

describe.each(ENGINES)('addresses (%s)', (engine) => {
  const { t, clock, passVerificationHour } = useAddressServer(engine);

  it('creates an address pending (JSON), with the country stored upper-case, then verifies it', async () => {
    const { sid: accountSid, client } = await t.newAccount();
    const { data, response } = await client.POST('/v1/addresses', {
      body: {
        friendly_name: 'Berlin office',
        customer_name: 'Example GmbH',
        street: 'Friedrichstraße 123',
        city: 'Berlin',
        region: 'Berlin',
        postal_code: '10117',
        iso_country: 'de',
      },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({
      account_sid: accountSid,
      friendly_name: 'Berlin office',
      customer_name: 'Example GmbH',
      street: 'Friedrichstraße 123',
      postal_code: '10117',
      iso_country: 'DE',
      status: 'pending',
      rejection_reason: null,
    });
    expect(data!.sid).toMatch(/^AD[0-9a-f]{32}$/);
    passVerificationHour();
    const settled = await waitUntil(async () => {
      const fetched = (await client.GET('/v1/addresses/{sid}', { params: { path: { sid: data!.sid } } })).data!;
      return fetched.status === 'pending' ? undefined : fetched;
    });
    expect(settled).toMatchObject({
      sid: data!.sid,
      status: 'verified',
      rejection_reason: null,
      date_created: data!.date_created,
    });
    expect(settled.date_updated > settled.date_created).toBe(true);
    expect(t.violations()).toEqual([]);
  });

  it('accepts form fields', async () => {
    const { apiKey } = await t.newAccount();
    const client = createTelephonyClient({ baseUrl: t.url, apiKey, encoding: 'form' });
    const { data, response } = await client.POST('/v1/addresses', {
      body: {
        customer_name: 'Example SAS',
        street: '12 Rue de la Paix',
        city: 'Paris',
        region: 'Île-de-France',
        postal_code: '75002',
        iso_country: 'FR',
      },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ iso_country: 'FR', region: 'Île-de-France', friendly_name: null, status: 'pending' });
    expect(t.violations()).toEqual([]);
  });

  it.each([
    ['US', '94105', '9410'],
    ['US', '94105-1234', 'ABCDE'],
    ['CA', 'K1A 0B1', '12345'],
    ['GB', 'SW1A 1AA', 'SW1A'],
    ['DE', '10117', '1011'],
    ['FR', '75002', '750002'],
    ['AU', '2000', '20000'],
    ['NL', '1012 JS', '1012'],
    ['JP', '100-0001', '100-01'],
    ['PL', '00-950', '00950'],
    ['PT', '1100-148', '1100'],
    ['BR', '01310-100', '0131'],
  ])('verifies an address in %s with postal code %s and rejects one with %s', async (country, good, bad) => {
    const { client } = await t.newAccount();
    const [ok, ko] = await Promise.all([
      settledAddress(clock, client, country, { postal_code: good }),
      settledAddress(clock, client, country, { postal_code: bad }),
    ]);
    expect(ok).toMatchObject({ status: 'verified', rejection_reason: null });
    expect(ko.status).toBe('rejected');
    expect(ko.rejection_reason).toContain(`format used in ${country}`);
  });

  it("lists the account's addresses newest first, page by page, and fetches one", async () => {
    const { client } = await t.newAccount();
    const made = [];
    for (const street of ['1 First St', '2 Second St', '3 Third St'])
      made.push(await submitAddress(client, 'US', { street }));
    const first = await client.GET('/v1/addresses', { params: { query: { page_size: 2 } } });
    expect(first.data!.data.map((a) => a.street)).toEqual(['3 Third St', '2 Second St']);
    const second = await client.GET('/v1/addresses', {
      params: { query: { page_size: 2, page_token: first.data!.next_page_token! } },
    });
    expect(second.data!.data.map((a) => a.street)).toEqual(['1 First St']);
    expect(second.data!.next_page_token).toBeNull();
    const fetched = await client.GET('/v1/addresses/{sid}', { params: { path: { sid: made[1].sid } } });
    expect(fetched.data).toMatchObject({ sid: made[1].sid, street: '2 Second St' });
    expect(t.violations()).toEqual([]);
  });

  it('deletes an address: 204, then 404', async () => {
    const { client } = await t.newAccount();
    const address = await submitAddress(client, 'GB', { postal_code: 'EC1A 1BB' });
    expect(
      (await client.DELETE('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).response.status,
    ).toBe(204);
    expect((await client.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).response.status).toBe(
      404,
    );
    expect((await client.GET('/v1/addresses', {})).data!.data).toEqual([]);
  });

  it('refuses to delete an address a number uses (409 address_in_use) until the number is released', async () => {
    const { client } = await t.newAccount();
    const { address, number } = await numberOnAddress(clock, client, 'DE');
    const refused = await client.DELETE('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } });
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({
      code: 'address_in_use',
      detail: expect.stringContaining('release the number'),
    });
    expect((await client.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).data!.status).toBe(
      'verified',
    );

    expect(
      (await client.DELETE('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: number.sid } } })).response
        .status,
    ).toBe(204);
    expect(
      (await client.DELETE('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).response.status,
    ).toBe(204);
    expect(t.violations()).toEqual([]);
  });

  it("answers 404 for another account's address: fetch and delete", async () => {
    const owner = await t.newAccount();
    const other = await t.newAccount();
    const address = await submitAddress(owner.client, 'FR');
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: other.apiKey });
    expect((await direct.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).response.status).toBe(
      404,
    );
    expect(
      (await direct.DELETE('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).response.status,
    ).toBe(404);
    expect((await direct.GET('/v1/addresses', {})).data!.data).toEqual([]);
    expect(
      (await owner.client.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).response.status,
    ).toBe(200);
  });
});

describe.each(ENGINES)('address verification is durable (%s)', (engine) => {
  it('settles an address submitted before a restart', async () => {
    const t = await startTestServer(engine, { ADDRESS_VERIFICATION_DELAY: '1s' });
    try {
      const { client } = await t.newAccount();
      const address = await submitAddress(client, 'AU');
      const job = await t.server.services.store.db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'address.verify')
        .where('payload', 'like', `%${address.sid}%`)
        .executeTakeFirstOrThrow();
      const delay = new Date(job.run_at).getTime() - new Date(address.date_created).getTime();
      expect(delay).toBe(1000);
      await t.restart();
      const settled = await waitUntil(async () => {
        const fetched = (await client.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).data!;
        return fetched.status === 'pending' ? undefined : fetched;
      });
      expect(settled.status).toBe('verified');
      expect(
        await t.server.services.store.db.selectFrom('jobs').select('id').where('id', '=', job.id).executeTakeFirst(),
      ).toBeUndefined();
    } finally {
      await t.stop();
    }
  });
});
