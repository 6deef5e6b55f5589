// The inventory itself: large (tens of thousands of numbers per country), valid, consistent with provisioning's check.
import { describe, expect, it } from 'vitest';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { SUPPORTED_COUNTRIES } from '../../server/numbers/countries.js';
import { describeNumber, drawNumbers, type SearchType } from '../../server/numbers/inventory.js';
import { PatternSampler } from '../../server/numbers/pattern.js';
import { seededRandom } from '../../server/numbers/random.js';

const TYPES: Record<string, string[]> = {
  local: ['FIXED_LINE', 'FIXED_LINE_OR_MOBILE'],
  mobile: ['MOBILE'],
  toll_free: ['TOLL_FREE'],
};

async function draw(country: string, type: SearchType, count: number) {
  const out = [];
  for (const n of await drawNumbers(country, type, {})) {
    out.push(n);
    if (out.length === count) break;
  }
  return out;
}

describe('the inventory', () => {
  it.each(SUPPORTED_COUNTRIES)(
    'holds tens of thousands of distinct, valid local numbers in %s, each one provisioning would accept',
    async (country) => {
      const numbers = await draw(country, 'Local', 20_000);
      expect(numbers).toHaveLength(20_000);
      expect(new Set(numbers.map((n) => n.phone_number)).size).toBe(20_000);
      // An independent check of every 40th number by libphonenumber, and of the provisioning lookup.
      for (const n of numbers.filter((_, i) => i % 40 === 0)) {
        const parsed = parsePhoneNumberFromString(n.phone_number)!;
        expect(parsed.isValid()).toBe(true);
        expect(parsed.country).toBe(country);
        expect(TYPES[n.number_type]).toContain(parsed.getType());
        expect(await describeNumber(n.phone_number)).toEqual(n);
      }
    },
  );

  it.each(['US', 'GB', 'DE', 'FR', 'AU', 'JP'])(
    'holds tens of thousands of toll-free numbers in %s',
    async (country) => {
      const numbers = await draw(country, 'TollFree', 20_000);
      expect(new Set(numbers.map((n) => n.phone_number)).size).toBe(20_000);
      for (const n of numbers.filter((_, i) => i % 100 === 0))
        expect(parsePhoneNumberFromString(n.phone_number)!.getType()).toBe('TOLL_FREE');
    },
  );

  it('offers nothing provisioning would refuse, and refuses what it does not offer', async () => {
    expect(await describeNumber('+15005550001')).toBeNull(); // a sandbox magic number, not a real range
    expect(await describeNumber('+19002345678')).toBeNull(); // premium rate
    expect(await describeNumber('+14155550123 ')).toBeNull(); // not E.164
    const [mobile] = await drawNumbers('DE', 'Local', { smsEnabled: true });
    expect(await describeNumber(mobile.phone_number)).toMatchObject({
      number_type: 'mobile',
      iso_country: 'DE',
      capabilities: { sms: true },
    });
    const [tollFree] = await drawNumbers('CA', 'TollFree', {});
    expect(await describeNumber(tollFree.phone_number)).toEqual(tollFree);
  });

  it('draws digit strings that match the numbering plan patterns it reads', () => {
    const random = seededRandom('pattern test');
    for (const source of [
      '8(?:00|33|44|55|66|77|88)[2-9]\\d{6}',
      '800\\d{7,12}',
      '(?:1[0-25-9]|[2-9]\\d)\\d{4}|(?:3[0-4])?\\d{3}',
      '[13-57-9]\\d{8}',
    ]) {
      const sampler = new PatternSampler(source);
      const re = new RegExp(`^(?:${source})$`);
      for (let i = 0; i < 200; i++) expect(sampler.sample(random)).toMatch(re);
    }
  });
});
