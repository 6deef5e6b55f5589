// Provisioning, fetching, updating, listing and releasing numbers, through the typed client and the Prism
// contract proxy.
import { describe, expect, it } from 'vitest';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { ENGINES, useTestServer } from '../support/server.js';
import { createTelephonyClient } from '../../client/index.js';
import { availableNumber, searchLocal, searchTollFree } from './fixtures.js';
import { TestClock } from '../support/clock.js';

describe.each(ENGINES)('provisioning and managing numbers (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, contract: true, clock });

  it('provisions a searched number with its configuration (JSON) and answers 201 with the record', async () => {
    const { sid: accountSid, client } = await t.newAccount();
    const [offer] = await searchLocal(client, 'US', { area_code: '415', page_size: 1 });
    const { data, response } = await client.POST('/v1/incoming-phone-numbers', {
      body: {
        PhoneNumber: offer.phone_number,
        FriendlyName: 'Support line',
        SmsUrl: 'https://app.example.com/sms',
        VoiceUrl: 'http://app.example.com/voice',
        VoiceMethod: 'GET',
        StatusCallback: 'https://app.example.com/status',
      },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({
      account_sid: accountSid,
      phone_number: offer.phone_number,
      friendly_name: 'Support line',
      sms_url: 'https://app.example.com/sms',
      sms_method: 'POST',
      voice_url: 'http://app.example.com/voice',
      voice_method: 'GET',
      status_callback: 'https://app.example.com/status',
      capabilities: offer.capabilities,
      iso_country: 'US',
      number_type: 'local',
      address_sid: null,
      address_requirements: 'none',
    });
    expect(data!.sid).toMatch(/^PN[0-9a-f]{32}$/);
    expect(data!.date_created).toBe(data!.date_updated);
    expect(t.violations()).toEqual([]);
  });

  it('provisions with form fields and defaults the friendly name to the national format', async () => {
    const { apiKey } = await t.newAccount();
    const client = createTelephonyClient({ baseUrl: t.url, apiKey, encoding: 'form' });
    const phoneNumber = await availableNumber(client, 'GB');
    const { data, response } = await client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: phoneNumber, SmsUrl: 'https://app.example.com/sms' },
    });
    expect(response.status).toBe(201);
    expect(data!.friendly_name).toBe(parsePhoneNumberFromString(phoneNumber)!.formatNational());
    expect(data).toMatchObject({
      phone_number: phoneNumber,
      sms_url: 'https://app.example.com/sms',
      voice_url: null,
      sms_method: 'POST',
      voice_method: 'POST',
      iso_country: 'GB',
    });
    expect(t.violations()).toEqual([]);
  });

  it('provisions a toll-free number', async () => {
    const { client } = await t.newAccount();
    const [offer] = await searchTollFree(client, 'US', {
      area_code: '888',
      contains: String(Math.floor(Math.random() * 1000)).padStart(3, '0'),
      page_size: 1,
    });
    const { data, response } = await client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: offer.phone_number },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ number_type: 'toll_free', capabilities: { voice: true, sms: true, mms: false } });
  });

  it('fetches, updates and lists a number; an empty URL clears a webhook', async () => {
    const { client } = await t.newAccount();
    const phoneNumber = await availableNumber(client);
    const created = (
      await client.POST('/v1/incoming-phone-numbers', {
        body: {
          PhoneNumber: phoneNumber,
          SmsUrl: 'https://a.example.com/sms',
          VoiceUrl: 'https://a.example.com/voice',
        },
      })
    ).data!;

    const fetched = await client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: created.sid } } });
    expect(fetched.data).toEqual(created);

    clock.advance(1000);
    const updated = await client.POST('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: created.sid } },
      body: { FriendlyName: 'Sales', SmsUrl: 'https://b.example.com/sms', SmsMethod: 'GET', VoiceUrl: '' },
    });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({
      friendly_name: 'Sales',
      sms_url: 'https://b.example.com/sms',
      sms_method: 'GET',
      voice_url: null,
      phone_number: phoneNumber,
    });
    expect(updated.data!.date_updated > created.date_updated).toBe(true);
    expect(
      (await client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: created.sid } } })).data,
    ).toEqual(updated.data);

    const listed = await client.GET('/v1/incoming-phone-numbers', { params: { query: {} } });
    expect(listed.data).toEqual({ data: [updated.data], next_page_token: null });
    expect(t.violations()).toEqual([]);
  });

  it('lists newest first, page by page, filtered by phone_number and friendly_name', async () => {
    const { client } = await t.newAccount();
    const numbers: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const phoneNumber = await availableNumber(client);
      numbers.push(phoneNumber);
      expect(
        (await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: phoneNumber, FriendlyName: name } }))
          .response.status,
      ).toBe(201);
    }
    const first = await client.GET('/v1/incoming-phone-numbers', { params: { query: { page_size: 2 } } });
    expect(first.data!.data.map((n) => n.friendly_name)).toEqual(['three', 'two']);
    const second = await client.GET('/v1/incoming-phone-numbers', {
      params: { query: { page_size: 2, page_token: first.data!.next_page_token! } },
    });
    expect(second.data).toMatchObject({ data: [{ friendly_name: 'one' }], next_page_token: null });

    const byName = await client.GET('/v1/incoming-phone-numbers', { params: { query: { friendly_name: 'two' } } });
    expect(byName.data!.data.map((n) => n.phone_number)).toEqual([numbers[1]]);
    const byPrefix = await client.GET('/v1/incoming-phone-numbers', {
      params: { query: { phone_number: numbers[2].slice(0, 8) } },
    });
    expect(byPrefix.data!.data.map((n) => n.phone_number)).toContain(numbers[2]);
    const byDigits = await client.GET('/v1/incoming-phone-numbers', {
      params: { query: { phone_number: numbers[0].slice(-6) } },
    });
    expect(byDigits.data!.data.map((n) => n.phone_number)).toEqual([numbers[0]]);
    expect(t.violations()).toEqual([]);
  });

  it('releases a number: 204, gone for the account, offered again, and another account can provision it', async () => {
    const alice = await t.newAccount('alice');
    const bob = await t.newAccount('bob');
    const contains = String(Math.floor(Math.random() * 1e4)).padStart(4, '0');
    const [offer] = await searchLocal(alice.client, 'US', { contains, page_size: 1 });
    const held = (await alice.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: offer.phone_number } }))
      .data!;
    expect((await searchLocal(bob.client, 'US', { contains, page_size: 50 })).map((n) => n.phone_number)).not.toContain(
      offer.phone_number,
    );

    const released = await alice.client.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: held.sid } },
    });
    expect(released.response.status).toBe(204);
    expect(
      (await alice.client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: held.sid } } })).response
        .status,
    ).toBe(404);
    expect((await alice.client.GET('/v1/incoming-phone-numbers', {})).data!.data).toEqual([]);

    expect((await searchLocal(bob.client, 'US', { contains, page_size: 1 }))[0].phone_number).toBe(offer.phone_number);
    const taken = await bob.client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: offer.phone_number } });
    expect(taken.response.status).toBe(201);
    expect(taken.data).toMatchObject({ account_sid: bob.sid, phone_number: offer.phone_number });
    expect(taken.data!.sid).not.toBe(held.sid);
    expect(t.violations()).toEqual([]);
  });
});
