// Number intelligence: one number or a batch, each described by the numbering plan (classify.ts), carrier and
// geocoding data (geo-carrier.ts) and a spam score (spam-score.ts) over what the platform has seen (signals.ts).
import type { components } from '../../generated/openapi.js';
import type { Store } from '../store/db.js';
import { errors } from '../errors.js';
import { classifyNumberOnce, isPhoneNumberText, parseCountry, type ClassifiedNumber } from './classify.js';
import { describe } from '../phone-data/geo-carrier.js';
import { gatherPlatformSignals } from './signals.js';
import { NOTHING_SEEN, scoreSpam } from './spam-score.js';

export type PhoneNumberLookup = components['schemas']['PhoneNumberLookup'];
export type BatchItem = components['schemas']['PhoneNumberLookupBatchItem'];
/** What a verification's fraud guard judges a number by (verify/fraud.ts), and keeps of it. */
export type Screening = Pick<PhoneNumberLookup, 'phone_number' | 'valid' | 'line_type' | 'spam_score'> & {
  carrier_name: string | null;
};

const MAX_BATCH = 1000;

const NOT_A_PHONE_NUMBER =
  'is not a phone number: give E.164 such as +14155550123, or a national number with country_code';

export class LookupService {
  constructor(private readonly store: Store) {}

  /** Looks up one number; text that is not a phone number at all is a 400 naming `field`. */
  async lookup(input: string, countryCode?: string, field = 'number'): Promise<PhoneNumberLookup> {
    const country = parseCountry(countryCode);
    if (!isPhoneNumberText(input)) throw errors.invalidField(field, NOT_A_PHONE_NUMBER);
    const [result] = await this.describeAll([classifyNumberOnce(input, country)]);
    return result;
  }

  /**
   * A lookup of one number for a verification about to send to it: the same classification, carrier and spam score,
   * without what only a lookup's answer shows (the national format, the location), which a send would pay for.
   */
  async screen(input: string, field: string): Promise<Screening> {
    if (!isPhoneNumberText(input)) throw errors.invalidField(field, NOT_A_PHONE_NUMBER);
    const n = classifyNumberOnce(input);
    const seen = await this.platformSignals([n]);
    return {
      phone_number: n.phoneNumber,
      valid: n.valid,
      line_type: n.lineType,
      spam_score: spamOf(n, seen).spam_score,
      carrier_name: n.parts ? await describe('carrier', n.parts) : null,
    };
  }

  /** Looks up 1 to 1000 numbers in input order; text that is not a phone number is that item's error. */
  async lookupBatch(inputs: string[], countryCode?: string): Promise<BatchItem[]> {
    if (inputs.length > MAX_BATCH) throw errors.batchTooLarge('phone_numbers', MAX_BATCH, inputs.length);
    const country = parseCountry(countryCode);
    const classified = inputs.map((input) => (isPhoneNumberText(input) ? classifyNumberOnce(input, country) : null));
    const results = await this.describeAll(classified.filter((c): c is ClassifiedNumber => c !== null));
    let next = 0;
    return inputs.map((input, i) =>
      classified[i]
        ? { input, result: results[next++], error: null }
        : {
            input,
            result: null,
            error: { code: 'not_a_phone_number', message: `phone_numbers[${i}] ${NOT_A_PHONE_NUMBER}` },
          },
    );
  }

  /** What the platform saw lately of each number (by E.164), for its spam score. */
  private platformSignals(numbers: ClassifiedNumber[]): Promise<Seen> {
    return gatherPlatformSignals(
      this.store.db,
      numbers.flatMap((n) => (n.e164 ? [n.e164] : [])),
      this.store.clock.now(),
    );
  }

  private async describeAll(numbers: ClassifiedNumber[]): Promise<PhoneNumberLookup[]> {
    const seen = await this.platformSignals(numbers);
    return Promise.all(
      numbers.map(async (n) => {
        const [carrier, location] = n.parts
          ? await Promise.all([describe('carrier', n.parts), describe('geocodes', n.parts)])
          : [null, null];
        return {
          phone_number: n.phoneNumber,
          valid: n.valid,
          validation_errors: n.validationErrors,
          country_code: n.countryCode,
          calling_country_code: n.callingCountryCode,
          national_format: n.nationalFormat,
          line_type: n.lineType,
          // The carrier data names the original network of a range; no package ships MCC/MNC for it.
          carrier: carrier ? { name: carrier, mobile_country_code: null, mobile_network_code: null } : null,
          location,
          ...spamOf(n, seen),
        };
      }),
    );
  }
}

type Seen = Awaited<ReturnType<typeof gatherPlatformSignals>>;

/** A number's spam score and its reasons, from its classification and what the platform saw of it. */
function spamOf(n: ClassifiedNumber, seen: Seen) {
  return scoreSpam({
    valid: n.valid,
    lineType: n.lineType,
    typeKnown: n.typeKnown,
    platform: (n.e164 && seen.get(n.e164)) || NOTHING_SEEN,
  });
}
