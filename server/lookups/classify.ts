// What the numbering plan says about a number: validity and why not, E.164 and national format, country,
// calling code and line type, all from libphonenumber's full ("max") metadata. Pure and synchronous.
import {
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
  type CountryCode,
  type NumberType,
} from 'libphonenumber-js/max';
import type { components } from '../../generated/openapi.js';
import { errors } from '../errors.js';
import type { NumberParts } from '../phone-data/geo-carrier.js';

export type LineType = components['schemas']['LineType'];
type ValidationError = components['schemas']['PhoneNumberLookup']['validation_errors'][number];

export interface ClassifiedNumber {
  /** E.164 when the text parsed as a number, otherwise the input as given. */
  phoneNumber: string;
  /** E.164 when the text parsed as a number (valid or not): the key for what the platform has seen. */
  e164: string | null;
  valid: boolean;
  validationErrors: ValidationError[];
  countryCode: string | null;
  callingCountryCode: string | null;
  nationalFormat: string | null;
  lineType: LineType;
  /** Whether the numbering plan gives the number's range a type at all (fixed-or-mobile counts as one). */
  typeKnown: boolean;
  /** Set for valid numbers: what carrier and geocoding data are looked up by. */
  parts: NumberParts | null;
}

// Phone-number characters only: digits, one leading +, and the punctuation people write numbers with.
// Anything else (letters, extensions, symbols) is not a phone number at all: a 400, or a per-item error.
const PHONE_TEXT = /^\+?[0-9\s().\-/+]*[0-9][0-9\s().\-/+]*$/;

export function isPhoneNumberText(text: string): boolean {
  return PHONE_TEXT.test(text.trim());
}

/** The ISO country of a `country_code` parameter, or a 400 naming the field when libphonenumber has no such country. */
export function parseCountry(value: string | undefined, field = 'country_code'): CountryCode | undefined {
  if (value === undefined) return undefined;
  const code = value.toUpperCase();
  if (!isSupportedCountry(code))
    throw errors.invalidField(
      field,
      `"${value}" is not a country with a numbering plan (ISO 3166-1 alpha-2, e.g. US or DE)`,
    );
  return code;
}

const LINE_TYPES: Record<NumberType & string, LineType> = {
  MOBILE: 'mobile',
  FIXED_LINE: 'landline',
  // Shared fixed/mobile ranges (all of North America): the plan cannot tell, and porting hides it.
  FIXED_LINE_OR_MOBILE: 'unknown',
  TOLL_FREE: 'toll_free',
  PREMIUM_RATE: 'premium',
  SHARED_COST: 'shared_cost',
  VOIP: 'voip',
  PERSONAL_NUMBER: 'personal',
  PAGER: 'pager',
  UAN: 'uan',
  VOICEMAIL: 'voicemail',
};

const LENGTH_ERRORS: Record<string, ValidationError> = {
  INVALID_COUNTRY: 'INVALID_COUNTRY_CODE',
  NOT_A_NUMBER: 'NOT_A_NUMBER',
  TOO_SHORT: 'TOO_SHORT',
  TOO_LONG: 'TOO_LONG',
  INVALID_LENGTH: 'INVALID_LENGTH',
};

// Countries by calling code, to name the country of an invalid number when only one country uses the code.
const countriesByCallingCode = new Map<string, CountryCode[]>();
for (const country of getCountries()) {
  const code = getCountryCallingCode(country);
  countriesByCallingCode.set(code, [...(countriesByCallingCode.get(code) ?? []), country]);
}

/** Classifies text already known to be phone-number text (see isPhoneNumberText). */
/** Numbers classified lately, by country and text: the same numbers come back (a user's number at each sign-in, a
 * verification's lookup, a list looked up again), and parsing with the full metadata costs more than the rest of
 * a lookup. The classification depends on nothing else, so it never goes stale; the map starts over when full. */
const classified = new Map<string, ClassifiedNumber>();
const CLASSIFIED_CACHE_SIZE = 10_000;

/** classifyNumber, remembered (the result is shared: callers must not change it). */
export function classifyNumberOnce(input: string, country?: CountryCode): ClassifiedNumber {
  const key = `${country ?? ''} ${input}`;
  let result = classified.get(key);
  if (!result) {
    result = classifyNumber(input, country);
    if (classified.size >= CLASSIFIED_CACHE_SIZE) classified.clear();
    classified.set(key, result);
  }
  return result;
}

function classifyNumber(input: string, country?: CountryCode): ClassifiedNumber {
  const text = input.trim();
  const parsed = parsePhoneNumberFromString(text, country);
  // A number the plan gives a type is valid (isValid is that same test wherever the full metadata has types), so a
  // valid number's ranges are matched once, not twice; isValid decides the numbers without a type.
  const type = parsed?.getType();
  if (parsed && (type !== undefined || parsed.isValid())) {
    let national: string | undefined;
    return {
      phoneNumber: parsed.number,
      e164: parsed.number,
      valid: true,
      validationErrors: [],
      countryCode: parsed.country ?? soleCountry(parsed.countryCallingCode),
      callingCountryCode: parsed.countryCallingCode,
      // Formatted when first asked: a verification's screening of the number never shows it (LookupService.screen).
      get nationalFormat() {
        return (national ??= parsed.formatNational());
      },
      lineType: type ? LINE_TYPES[type] : 'unknown',
      typeKnown: type !== undefined,
      parts: { countryCallingCode: parsed.countryCallingCode, nationalNumber: parsed.nationalNumber },
    };
  }
  const lengthError = validatePhoneNumberLength(text, country);
  const callingCode =
    parsed?.countryCallingCode ?? (country && !text.startsWith('+') ? getCountryCallingCode(country) : null);
  return {
    phoneNumber: parsed?.number ?? input,
    e164: parsed?.number ?? null,
    valid: false,
    validationErrors: [lengthError ? (LENGTH_ERRORS[lengthError] ?? 'INVALID_LENGTH') : 'INVALID_BUT_POSSIBLE'],
    countryCode: parsed?.country ?? (callingCode ? countryFor(callingCode, country) : null),
    callingCountryCode: callingCode,
    nationalFormat: null,
    lineType: 'unknown',
    typeKnown: false,
    parts: null,
  };
}

function soleCountry(callingCode: string): string | null {
  const countries = countriesByCallingCode.get(callingCode);
  return countries?.length === 1 ? countries[0] : null;
}

/** The given country when it uses this calling code, else the only country that does, else null. */
function countryFor(callingCode: string, country: CountryCode | undefined): string | null {
  if (country && getCountryCallingCode(country) === callingCode) return country;
  return soleCountry(callingCode);
}
