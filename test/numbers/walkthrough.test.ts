// The phone-number walkthrough the README once had, in TypeScript, run against a real server (docs/numbers.md has it
// in curl, run by test/docs).
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createTelephonyClient } from '../../client/index.js';
import { useAddressServer } from './fixtures.js';

describe.each(ENGINES)('the phone numbers walkthrough (%s)', (engine) => {
  const { t, passVerificationHour } = useAddressServer(engine);

  it('searches, provisions, configures and releases a number', async () => {
    const api = createTelephonyClient({ baseUrl: t.url, apiKey: (await t.newAccount()).apiKey });

    const { data: found } = await api.GET('/v1/available-phone-numbers/{country}/Local', {
      params: {
        path: { country: 'US' },
        query: { area_code: '415', contains: '55*', mms_enabled: true, page_size: 5 },
      },
    });
    const offer = found!.data[0];
    expect(offer).toMatchObject({
      phone_number: expect.stringMatching(/^\+1415/),
      region: 'CA',
      capabilities: { mms: true },
    });

    const { data: number, error } = await api.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: offer.phone_number, FriendlyName: 'Support line', SmsUrl: 'https://app.example.com/sms' },
    });
    expect(error).toBeUndefined();

    const configured = await api.POST('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: number!.sid } },
      body: { SmsUrl: 'https://app.example.com/sms-v2', VoiceUrl: 'https://app.example.com/voice' },
    });
    expect(configured.data).toMatchObject({
      sms_url: 'https://app.example.com/sms-v2',
      voice_url: 'https://app.example.com/voice',
      friendly_name: 'Support line',
    });

    const released = await api.DELETE('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: number!.sid } } });
    expect(released.response.status).toBe(204);
    expect(t.violations()).toEqual([]);
  });

  it('submits an address, waits for verification, and provisions a number in DE with it', async () => {
    const api = createTelephonyClient({ baseUrl: t.url, apiKey: (await t.newAccount()).apiKey });
    const { data: address } = await api.POST('/v1/addresses', {
      body: {
        customer_name: 'Example GmbH',
        street: 'Friedrichstraße 123',
        city: 'Berlin',
        region: 'Berlin',
        postal_code: '10117',
        iso_country: 'DE',
      },
    });
    passVerificationHour(); // the server verifies an address an hour after it is submitted
    await waitUntil(async () =>
      (await api.GET('/v1/addresses/{sid}', { params: { path: { sid: address!.sid } } })).data!.status === 'verified'
        ? true
        : undefined,
    );
    const { data: found } = await api.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'DE' }, query: { area_code: '30', page_size: 1 } },
    });
    const { data, response } = await api.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: found!.data[0].phone_number, AddressSid: address!.sid },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ iso_country: 'DE', address_sid: address!.sid });
    expect(t.violations()).toEqual([]);
  });
});
