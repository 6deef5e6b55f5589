import { describe as suite, expect, it } from 'vitest';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { carrier, geocoder } from 'libphonenumber-geo-carrier';
import { describe } from '../../server/phone-data/geo-carrier.js';

// Our cached reader must answer exactly what the library's own functions answer for the same data.
const NUMBERS = [
  '+14155550123',
  '+12125551234',
  '+16502530000',
  '+18005550123',
  '+447400123456',
  '+442079460000',
  '+441312345678',
  '+4915112345678',
  '+49301234567',
  '+4989123456',
  '+33612345678',
  '+33142685300',
  '+61412345678',
  '+61298765432',
  '+8619912345678',
  '+861012345678',
  '+919876543210',
  '+5511987654321',
  '+390612345678',
  '+34612345678',
  '+41431234567',
  '+79161234567',
  '+819012345678',
  '+27821234567',
  '+2348031234567',
  '+999123456',
];

suite('carrier and geocoding data (libphonenumber-geo-carrier)', () => {
  it.each(NUMBERS)('answers %s like the library does', async (input) => {
    const parsed = parsePhoneNumberFromString(input);
    if (!parsed) return expect(input).toBe('+999123456');
    const parts = { countryCallingCode: parsed.countryCallingCode, nationalNumber: parsed.nationalNumber };
    expect(await describe('carrier', parts)).toBe(await carrier(parsed as any));
    expect(await describe('geocodes', parts)).toBe(await geocoder(parsed as any));
  });

  it('finds data for numbers the library has data for (the comparison is not vacuous)', async () => {
    const parts = (n: string) => {
      const p = parsePhoneNumberFromString(n)!;
      return { countryCallingCode: p.countryCallingCode, nationalNumber: p.nationalNumber };
    };
    expect(await describe('carrier', parts('+4915112345678'))).toBe('T-Mobile');
    expect(await describe('geocodes', parts('+41431234567'))).toBe('Zurich');
    expect(await describe('geocodes', { countryCallingCode: '999', nationalNumber: '123456' })).toBeNull();
  });
});
