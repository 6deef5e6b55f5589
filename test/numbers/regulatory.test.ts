// Countries that require address verification refuse numbers without a verified address of the account.
import { describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { ENGINES } from '../support/server.js';
import { useAddressServer, availableNumber, numberOnAddress, settledAddress, submitAddress } from './fixtures.js';

describe.each(ENGINES)('regulatory requirements (%s)', (engine) => {
  const { t, clock, passVerificationHour } = useAddressServer(engine);

  it.each(['DE', 'FR', 'AU', 'IT', 'ES', 'BE', 'AT', 'JP'])(
    'refuses a number in %s without a verified address, naming the remedy',
    async (country) => {
      const { client } = await t.newAccount();
      const phoneNumber = await availableNumber(client, country);
      const { error, response } = await client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: phoneNumber },
      });
      expect(response.status).toBe(422);
      expect(error).toMatchObject({ status: 422, code: 'regulatory_requirements' });
      expect(error!.detail).toContain(`verified address of your account in ${country}`);
      expect(error!.detail).toContain('Settings > Addresses');
      expect(error!.detail).toContain(`${t.directUrl}/dashboard/settings/addresses`);
      expect(error!.detail).toContain('1 business day');
      expect((await client.GET('/v1/incoming-phone-numbers', {})).data!.data).toEqual([]);
      expect(t.violations()).toEqual([]);
    },
  );

  it('answers address_pending while the address is pending, then provisions once it is verified', async () => {
    // The address stays pending until the server's clock passes the verification hour.
    const { client } = await t.newAccount();
    const phoneNumber = await availableNumber(client, 'DE', { area_code: '30' });
    const pending = await submitAddress(client, 'DE');
    const early = await client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: phoneNumber, AddressSid: pending.sid },
    });
    expect(early.response.status).toBe(422);
    expect(early.error).toMatchObject({
      status: 422,
      code: 'address_pending',
      type: '/problems/address_pending',
      detail: expect.stringContaining(`address ${pending.sid} is still pending verification`),
    });
    // Without AddressSid: the pending address in DE is named too, not the remedy for having none.
    const omitted = await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } });
    expect(omitted.response.status).toBe(422);
    expect(omitted.error).toMatchObject({ code: 'address_pending', detail: expect.stringContaining(pending.sid) });
    expect(omitted.error!.detail).not.toContain('Submit an address');

    passVerificationHour();
    const verified = await waitUntil(async () => {
      const { data } = await client.GET('/v1/addresses/{sid}', { params: { path: { sid: pending.sid } } });
      return data?.status === 'verified' ? data : undefined;
    });
    const { data, response } = await client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: phoneNumber, AddressSid: verified.sid },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({
      phone_number: phoneNumber,
      iso_country: 'DE',
      address_sid: verified.sid,
      address_requirements: 'local',
    });
    expect(t.violations()).toEqual([]);
  });

  it('answers regulatory_requirements, not address_pending, for a pending address in another country', async () => {
    const { client } = await t.newAccount();
    await submitAddress(client, 'FR');
    const phoneNumber = await availableNumber(client, 'DE');
    const { error, response } = await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } });
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ code: 'regulatory_requirements' });
  });

  it('uses the oldest verified address in the country when AddressSid is left out', async () => {
    const { client } = await t.newAccount();
    await settledAddress(clock, client, 'AU', { postal_code: 'not-a-postcode' });
    const first = await settledAddress(clock, client, 'AU');
    await settledAddress(clock, client, 'AU', { street: '2 Second Street' });
    const phoneNumber = await availableNumber(client, 'AU');
    const { data, response } = await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } });
    expect(response.status).toBe(201);
    expect(data!.address_sid).toBe(first.sid);
  });

  it('refuses a verified address in another country, and a rejected one', async () => {
    const { client } = await t.newAccount();
    const french = await settledAddress(clock, client, 'FR');
    const rejected = await settledAddress(clock, client, 'DE', { postal_code: '1011' });
    expect(rejected.status).toBe('rejected');
    const phoneNumber = await availableNumber(client, 'DE');
    for (const [sid, words] of [
      [french.sid, 'is in FR'],
      [rejected.sid, 'was rejected'],
    ]) {
      const { error, response } = await client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: phoneNumber, AddressSid: sid },
      });
      expect(response.status).toBe(422);
      expect(error).toMatchObject({ code: 'regulatory_requirements', detail: expect.stringContaining(words) });
    }
  });

  it('accepts a verified address in any country where the requirement is "any"', async () => {
    const { client } = await t.newAccount();
    const phoneNumber = await availableNumber(client, 'IE');
    expect(
      (await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } })).error,
    ).toMatchObject({ code: 'regulatory_requirements' });
    const german = await settledAddress(clock, client, 'DE');
    const { data, response } = await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber } });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ iso_country: 'IE', address_requirements: 'any', address_sid: german.sid });
  });

  it('answers 422 address_not_found for an address of another account', async () => {
    const owner = await t.newAccount();
    const other = await t.newAccount();
    const address = await settledAddress(clock, owner.client, 'DE');
    const phoneNumber = await availableNumber(other.client, 'DE');
    const { error, response } = await other.client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: phoneNumber, AddressSid: address.sid },
    });
    expect(response.status).toBe(422);
    expect(error!.code).toBe('address_not_found');
  });

  it('lets an update point a number at another verified address, under the same rules', async () => {
    const { client } = await t.newAccount();
    const { address: first, number } = await numberOnAddress(clock, client, 'FR');
    const rejected = await settledAddress(clock, client, 'FR', { street: '3 Rue Neuve', postal_code: '7500' });
    const refused = await client.POST('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: number.sid } },
      body: { AddressSid: rejected.sid },
    });
    expect(refused.error).toMatchObject({ status: 422, code: 'regulatory_requirements' });
    expect(
      (await client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: number.sid } } })).data!
        .address_sid,
    ).toBe(first.sid);
    const second = await settledAddress(clock, client, 'FR', { street: '4 Rue Neuve' });
    const moved = await client.POST('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: number.sid } },
      body: { AddressSid: second.sid },
    });
    expect(moved.data!.address_sid).toBe(second.sid);
    expect(t.violations()).toEqual([]);
  });
});
