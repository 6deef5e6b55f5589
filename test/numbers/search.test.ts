// Searching the inventory: real numbering plans, the filters users expect, and never a number someone holds.
import { afterAll, describe, expect, it } from 'vitest';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { start, type RunningServer } from '../../server/app.js';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, startTestServer, useTestServer, type TestServer } from '../support/server.js';
import { SUPPORTED_COUNTRIES } from '../../server/numbers/countries.js';
import { searchLocal, searchTollFree, type AvailablePhoneNumber } from './fixtures.js';

const LOCAL_TYPES = ['FIXED_LINE', 'FIXED_LINE_OR_MOBILE'];

function expectValid(n: AvailablePhoneNumber, country: string) {
  const parsed = parsePhoneNumberFromString(n.phone_number)!;
  expect(parsed.isValid(), n.phone_number).toBe(true);
  expect(parsed.number).toBe(n.phone_number);
  expect(n.friendly_name).toBe(parsed.formatNational());
  const types = n.number_type === 'local' ? LOCAL_TYPES : n.number_type === 'mobile' ? ['MOBILE'] : ['TOLL_FREE'];
  expect(types, `${n.phone_number} is ${parsed.getType()}`).toContain(parsed.getType());
  expect(parsed.country).toBe(n.number_type === 'toll_free' && country === 'CA' ? 'US' : country);
}

describe.each(ENGINES)('searching available numbers (%s)', (engine) => {
  const t = useTestServer({ engine, contract: true });

  it('covers at least 20 countries, including US, CA, GB, DE, FR and AU', () => {
    expect(SUPPORTED_COUNTRIES.length).toBeGreaterThanOrEqual(20);
    expect(SUPPORTED_COUNTRIES).toEqual(expect.arrayContaining(['US', 'CA', 'GB', 'DE', 'FR', 'AU']));
  });

  it.each(SUPPORTED_COUNTRIES)('offers valid local and toll-free numbers of the right type in %s', async (country) => {
    const local = await searchLocal(t.account.client, country, { page_size: 100 });
    expect(local).toHaveLength(100);
    for (const n of local) {
      expectValid(n, country);
      expect(['local', 'mobile']).toContain(n.number_type);
      expect(n.capabilities.voice).toBe(true);
      if (n.number_type === 'mobile') expect(n.capabilities.sms).toBe(true);
    }
    expect(local.some((n) => n.number_type === 'local')).toBe(true);
    const tollFree = await searchTollFree(t.account.client, country, { page_size: 20 });
    expect(tollFree).toHaveLength(20);
    for (const n of tollFree) {
      expectValid(n, country);
      expect(n).toMatchObject({ number_type: 'toll_free', locality: null, region: null });
    }
    expect(t.violations()).toEqual([]);
  });

  it('offers US toll-free numbers only under 800, 833, 844, 855, 866, 877 and 888', async () => {
    const numbers = await searchTollFree(t.account.client, 'US', { page_size: 300 });
    const codes = new Set(numbers.map((n) => n.phone_number.slice(2, 5)));
    expect([...codes].sort()).toEqual(['800', '833', '844', '855', '866', '877', '888']);
  });

  it('answers page_size distinct numbers, up to 1000, and the same numbers for the same search', async () => {
    const big = await searchLocal(t.account.client, 'DE', { page_size: 1000 });
    expect(new Set(big.map((n) => n.phone_number)).size).toBe(1000);
    expect(await searchLocal(t.account.client, 'US', { area_code: '212', page_size: 10 })).toEqual(
      await searchLocal(t.account.client, 'us', { area_code: '212', page_size: 10 }),
    );
    expect(await searchLocal(t.account.client, 'US', { page_size: 50 })).toHaveLength(50);
  });

  it('gives geographic numbers their locality and region where the data knows them', async () => {
    const sf = await searchLocal(t.account.client, 'US', { in_locality: 'san francisco', page_size: 20 });
    expect(sf).toHaveLength(20);
    for (const n of sf)
      expect(n).toMatchObject({ locality: 'San Francisco', region: 'CA', iso_country: 'US', number_type: 'local' });
    const berlin = await searchLocal(t.account.client, 'DE', { area_code: '30', page_size: 5 });
    for (const n of berlin)
      expect(n).toMatchObject({
        phone_number: expect.stringMatching(/^\+4930/),
        locality: 'Berlin',
        address_requirements: 'local',
      });
  });

  it('filters by area code', async () => {
    const numbers = await searchLocal(t.account.client, 'US', { area_code: '415', page_size: 30 });
    expect(numbers).toHaveLength(30);
    for (const n of numbers) expect(n.phone_number).toMatch(/^\+1415/);
    const tollFree = await searchTollFree(t.account.client, 'US', { area_code: '888', page_size: 10 });
    for (const n of tollFree) expect(n.phone_number).toMatch(/^\+1888/);
  });

  it('filters by contains, with * matching any one digit', async () => {
    const numbers = await searchLocal(t.account.client, 'US', { contains: '555**42', page_size: 30 });
    expect(numbers).toHaveLength(30);
    for (const n of numbers) expect(n.phone_number.slice(1)).toMatch(/555\d\d42/);
    const exact = await searchLocal(t.account.client, 'GB', { area_code: '20', contains: '7946', page_size: 10 });
    for (const n of exact) expect(n.phone_number).toMatch(/^\+4420.*7946/);
  });

  it('filters by region (code or name) and locality, case- and accent-insensitively', async () => {
    for (const region of ['CA', 'california']) {
      const numbers = await searchLocal(t.account.client, 'US', { in_region: region, page_size: 20 });
      expect(numbers).toHaveLength(20);
      for (const n of numbers) expect(n.region).toBe('CA');
    }
    const idf = await searchLocal(t.account.client, 'FR', { in_region: 'ile-de-france', page_size: 10 });
    expect(idf).toHaveLength(10);
    for (const n of idf)
      expect(n).toMatchObject({ region: 'Île-de-France', phone_number: expect.stringMatching(/^\+331/) });
    const munich = await searchLocal(t.account.client, 'DE', { in_locality: 'MUNICH', page_size: 5 });
    for (const n of munich) expect(n.locality).toBe('Munich');
    expect(await searchTollFree(t.account.client, 'US', { in_region: 'CA' })).toEqual([]);
  });

  it('filters by capabilities: SMS in a country whose geographic numbers lack it gives mobile numbers', async () => {
    const sms = await searchLocal(t.account.client, 'DE', { sms_enabled: true, page_size: 20 });
    expect(sms).toHaveLength(20);
    for (const n of sms) expect(n).toMatchObject({ number_type: 'mobile', capabilities: { sms: true } });
    const mms = await searchLocal(t.account.client, 'US', { mms_enabled: true, page_size: 50 });
    expect(mms).toHaveLength(50);
    for (const n of mms) expect(n.capabilities.mms).toBe(true);
    expect(await searchLocal(t.account.client, 'GB', { mms_enabled: true })).toEqual([]);
  });

  it('leaves out numbers that need an address when asked', async () => {
    expect(await searchLocal(t.account.client, 'DE', { exclude_address_required: true } as any)).toEqual([]);
    const us = await searchLocal(t.account.client, 'US', { exclude_address_required: true, page_size: 5 } as any);
    expect(us.map((n) => n.address_requirements)).toEqual(['none', 'none', 'none', 'none', 'none']);
    const de = await searchLocal(t.account.client, 'DE', { page_size: 5 });
    expect(de.every((n) => n.address_requirements === 'local')).toBe(true);
  });

  it('never offers a number that any account holds', async () => {
    const holder = await t.newAccount('holder');
    const query = { area_code: '646', contains: '4242', page_size: 5 };
    const before = await searchLocal(t.account.client, 'US', query);
    expect(before).toHaveLength(5);
    for (const n of before.slice(0, 3)) {
      expect(
        (await holder.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: n.phone_number } })).response
          .status,
      ).toBe(201);
    }
    const after = await searchLocal(t.account.client, 'US', query);
    expect(after).toHaveLength(5);
    const held = new Set(before.slice(0, 3).map((n) => n.phone_number));
    expect(after.filter((n) => held.has(n.phone_number))).toEqual([]);
    // The numbers nobody took keep their place: the search is deterministic.
    expect(after.slice(0, 2)).toEqual(before.slice(3));
    expect(t.violations()).toEqual([]);
  });
});

// A search's answer is remembered while no number is provisioned or released (numbers/recent-searches.ts): on
// PostgreSQL, a change through another instance must end it too.
describe.runIf(ENGINES.includes('postgres'))('searching from two instances on one database (postgres)', () => {
  let first: TestServer | undefined;
  let second: RunningServer | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.stop();
  });

  it('leaves out a number held through the other instance, and offers it again once released there', async () => {
    first = await startTestServer('postgres');
    second = await start({ ...first.config, port: 0 });
    const account = await first.newAccount();
    const other = createTelephonyClient({ baseUrl: second.url, apiKey: account.apiKey });
    const query = {
      area_code: '312',
      contains: String(Math.floor(Math.random() * 1e4)).padStart(4, '0'),
      page_size: 5,
    };
    const before = await searchLocal(account.client, 'US', query);
    expect(before).toHaveLength(5);
    expect(await searchLocal(account.client, 'US', query)).toEqual(before);

    const taken = await other.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: before[0].phone_number } });
    expect(taken.response.status).toBe(201);
    const during = await searchLocal(account.client, 'US', query);
    expect(during.map((n) => n.phone_number)).not.toContain(before[0].phone_number);
    expect(during.slice(0, 4)).toEqual(before.slice(1));

    const released = await other.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: taken.data!.sid } },
    });
    expect(released.response.status).toBe(204);
    expect(await searchLocal(account.client, 'US', query)).toEqual(before);
  });
});
