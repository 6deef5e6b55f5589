// Shared steps of the phone-number and address tests: find an available number, get a verified address, wait.
import { expect } from 'vitest';
import type { TelephonyClient, components } from '../../client/index.js';
import { waitUntil } from '../support/wait.js';
import { TestClock } from '../support/clock.js';
import { type Engine, useTestServer } from '../support/server.js';

export type AvailablePhoneNumber = components['schemas']['AvailablePhoneNumber'];

type SearchQuery = {
  area_code?: string;
  contains?: string;
  sms_enabled?: boolean;
  mms_enabled?: boolean;
  in_region?: string;
  in_locality?: string;
  page_size?: number;
};

export const searchLocal = (client: TelephonyClient, country: string, query: SearchQuery = {}) =>
  search(client, '/v1/available-phone-numbers/{country}/Local', country, query);

export const searchTollFree = (client: TelephonyClient, country: string, query: SearchQuery = {}) =>
  search(client, '/v1/available-phone-numbers/{country}/TollFree', country, query);

/** The numbers a search of one kind offers; the search must answer 200. */
async function search(
  client: TelephonyClient,
  path: '/v1/available-phone-numbers/{country}/Local' | '/v1/available-phone-numbers/{country}/TollFree',
  country: string,
  query: SearchQuery,
): Promise<AvailablePhoneNumber[]> {
  const { data, error, response } = await client.GET(path, { params: { path: { country }, query } });
  expect(response.status, JSON.stringify(error)).toBe(200);
  return data!.data;
}

/** An available number; a `contains` of random digits keeps parallel tests from reaching for the same one. */
export async function availableNumber(
  client: TelephonyClient,
  country = 'US',
  query: SearchQuery = {},
): Promise<string> {
  const found = await searchLocal(client, country, {
    contains: String(Math.floor(Math.random() * 1e4)).padStart(4, '0'),
    ...query,
    page_size: 5,
  });
  expect(found.length).toBeGreaterThan(0);
  return found[Math.floor(Math.random() * found.length)].phone_number;
}

const ADDRESSES: Partial<Record<string, { city: string; region: string; postal_code: string }>> = {
  DE: { city: 'Berlin', region: 'Berlin', postal_code: '10117' },
  FR: { city: 'Paris', region: 'Île-de-France', postal_code: '75002' },
  AU: { city: 'Sydney', region: 'NSW', postal_code: '2000' },
  IT: { city: 'Roma', region: 'Lazio', postal_code: '00184' },
  US: { city: 'San Francisco', region: 'CA', postal_code: '94105' },
};

export async function submitAddress(
  client: TelephonyClient,
  iso_country: string,
  overrides: Partial<components['schemas']['CreateAddressRequest']> = {},
) {
  const { data, error, response } = await client.POST('/v1/addresses', {
    body: {
      customer_name: 'Example Ltd',
      street: '1 Main Street',
      city: 'Capital',
      region: 'Region',
      postal_code: '1000',
      ...ADDRESSES[iso_country],
      iso_country,
      ...overrides,
    },
  });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!;
}

/** Submits an address and waits for the verification job to settle it (the server runs with a short delay). */
export async function settledAddress(
  clock: TestClock,
  client: TelephonyClient,
  iso_country: string,
  overrides: Partial<components['schemas']['CreateAddressRequest']> = {},
) {
  const created = await submitAddress(client, iso_country, overrides);
  clock.advance(VERIFICATION_DELAY_MS);
  return waitUntil(
    async () => {
      const { data } = await client.GET('/v1/addresses/{sid}', { params: { path: { sid: created.sid } } });
      return data && data.status !== 'pending' ? data : undefined;
    },
    15_000,
    `address ${created.sid} to be verified`,
  );
}

/** A verified address of the account in `country`, and a number of that country provisioned on it. */
export async function numberOnAddress(clock: TestClock, client: TelephonyClient, country: string) {
  const address = await settledAddress(clock, client, country);
  const PhoneNumber = await availableNumber(client, country);
  const { data, error, response } = await client.POST('/v1/incoming-phone-numbers', {
    body: { PhoneNumber, AddressSid: address.sid },
  });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return { address, number: data! };
}

/** Test servers verify an address an hour after it is submitted, on their TestClock: a test moves the clock past
 * the hour (`settledAddress`) instead of waiting (the production default is a business day). */
const HOUR_VERIFICATION = { ADDRESS_VERIFICATION_DELAY: '1h' };
const VERIFICATION_DELAY_MS = 3_600_000;

/** A test server (behind the contract proxy) whose addresses settle once the test moves its clock past the hour. */
export function useAddressServer(engine: Engine) {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: HOUR_VERIFICATION, contract: true, clock });
  /** Moves the server's clock past the verification hour: addresses pending until now settle within a poll. */
  const passVerificationHour = () => clock.advance(VERIFICATION_DELAY_MS);
  return { t, clock, passVerificationHour };
}
