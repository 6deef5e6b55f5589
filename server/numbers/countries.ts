// The countries the inventory covers, with what their numbers can do and what regulators ask before one is
// provisioned. The numbers themselves come from libphonenumber's numbering plans (see inventory.ts).
import { getCountries, type CountryCode } from 'libphonenumber-js/max';
import type { components } from '../../generated/openapi.js';
import { hash32 } from './random.js';

export type AddressRequirement = components['schemas']['AddressRequirements'];
export type NumberKind = 'local' | 'mobile' | 'toll_free';
export type Capabilities = components['schemas']['PhoneNumberCapabilities'];

export interface CountryProfile {
  iso: CountryCode;
  /** What provisioning a number here needs: none, a verified address anywhere, or one in this country. */
  addressRequirements: AddressRequirement;
  /** Where the plan cannot tell fixed from mobile (NANP, MX), geographic numbers take SMS too. */
  geographicSms: boolean;
  /** Elsewhere geographic numbers are voice-only, so Local search also offers mobile numbers (SMS). */
  mobileInLocal: boolean;
  /** Whether toll-free numbers take SMS. */
  tollFreeSms: boolean;
  /** The NANP's toll-free codes are shared by the US and Canada; libphonenumber files them under US. */
  tollFreeFrom: CountryCode;
}

// Address requirements follow what the leading providers document per country (DE, FR, AU, IT, ES, BE,
// AT, JP ... need a local address; IE, NZ, BR any address; the NANP, GB and the Nordics none).
const LOCAL: CountryCode[] = ['DE', 'FR', 'AU', 'IT', 'ES', 'NL', 'BE', 'AT', 'CH', 'JP', 'PL', 'PT'];
const ANY: CountryCode[] = ['IE', 'NZ', 'BR'];
const NONE: CountryCode[] = ['US', 'CA', 'GB', 'SE', 'NO', 'FI', 'MX'];
const NANP: CountryCode[] = ['US', 'CA'];
const FIXED_OR_MOBILE: CountryCode[] = [...NANP, 'MX'];

export const COUNTRIES: ReadonlyMap<string, CountryProfile> = new Map(
  [...NONE, ...ANY, ...LOCAL].map((iso) => [
    iso,
    {
      iso,
      addressRequirements: LOCAL.includes(iso) ? 'local' : ANY.includes(iso) ? 'any' : 'none',
      geographicSms: FIXED_OR_MOBILE.includes(iso),
      mobileInLocal: !FIXED_OR_MOBILE.includes(iso),
      tollFreeSms: NANP.includes(iso),
      tollFreeFrom: NANP.includes(iso) ? 'US' : iso,
    },
  ]),
);

export const SUPPORTED_COUNTRIES = [...COUNTRIES.keys()].sort();

const ISO_COUNTRIES = new Set<string>(getCountries());

/** Whether `code` is an ISO 3166-1 alpha-2 code of a country with a telephone numbering plan. */
export function isCountryCode(code: string): boolean {
  return ISO_COUNTRIES.has(code);
}

/** What numbers of a kind can do at best in a country: voice always; SMS on mobile numbers and where the plan
 * allows; MMS only in the NANP. */
export function kindCapabilities(profile: CountryProfile, kind: NumberKind): Capabilities {
  const sms =
    kind === 'mobile' || (kind === 'local' && profile.geographicSms) || (kind === 'toll_free' && profile.tollFreeSms);
  return { voice: true, sms, mms: sms && NANP.includes(profile.iso) && kind !== 'toll_free' };
}

/** What one number can do, a pure function of the number: its kind's best, less MMS on one number in five (ranges
 * of carriers without it). */
export function capabilitiesOf(profile: CountryProfile, kind: NumberKind, e164: string): Capabilities {
  const best = kindCapabilities(profile, kind);
  return { ...best, mms: best.mms && hash32(e164) % 5 !== 0 };
}
