// Postal code formats of the countries the inventory covers (and a lenient rule elsewhere): what the
// verification step checks before it marks an address verified.

interface PostalFormat {
  pattern: RegExp;
  /** How the format reads to a person, for the rejection reason. */
  example: string;
}

const FORMATS: Record<string, PostalFormat> = {
  US: { pattern: /^\d{5}(-\d{4})?$/, example: '5 digits, or ZIP+4 (94105 or 94105-1234)' },
  CA: {
    pattern: /^[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d$/i,
    example: 'letter-digit-letter digit-letter-digit (K1A 0B1)',
  },
  GB: { pattern: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i, example: 'an outward and inward code (SW1A 1AA)' },
  DE: { pattern: /^\d{5}$/, example: '5 digits (10117)' },
  FR: { pattern: /^\d{5}$/, example: '5 digits (75002)' },
  AU: { pattern: /^\d{4}$/, example: '4 digits (2000)' },
  IT: { pattern: /^\d{5}$/, example: '5 digits (00184)' },
  ES: { pattern: /^(0[1-9]|[1-4]\d|5[0-2])\d{3}$/, example: '5 digits starting 01-52 (28013)' },
  NL: { pattern: /^[1-9]\d{3} ?[A-Z]{2}$/i, example: '4 digits and 2 letters (1012 JS)' },
  BE: { pattern: /^[1-9]\d{3}$/, example: '4 digits (1000)' },
  AT: { pattern: /^[1-9]\d{3}$/, example: '4 digits (1010)' },
  CH: { pattern: /^[1-9]\d{3}$/, example: '4 digits (8001)' },
  SE: { pattern: /^\d{3} ?\d{2}$/, example: '5 digits (111 22)' },
  IE: { pattern: /^(?:[AC-FHKNPRTV-Y]\d{2}|D6W) ?[0-9AC-FHKNPRTV-Y]{4}$/i, example: 'an Eircode (D02 X285)' },
  JP: { pattern: /^\d{3}-?\d{4}$/, example: '7 digits (100-0001)' },
  BR: { pattern: /^\d{5}-?\d{3}$/, example: '8 digits (01310-100)' },
  MX: { pattern: /^\d{5}$/, example: '5 digits (06600)' },
  NZ: { pattern: /^\d{4}$/, example: '4 digits (6011)' },
  PL: { pattern: /^\d{2}-\d{3}$/, example: '2 digits, a hyphen, 3 digits (00-950)' },
  PT: { pattern: /^\d{4}-\d{3}$/, example: '4 digits, a hyphen, 3 digits (1100-148)' },
  NO: { pattern: /^\d{4}$/, example: '4 digits (0150)' },
  FI: { pattern: /^\d{5}$/, example: '5 digits (00100)' },
  DK: { pattern: /^\d{4}$/, example: '4 digits (1050)' },
};

const ANYWHERE: PostalFormat = {
  pattern: /^[A-Z0-9][A-Z0-9 -]{1,9}$/i,
  example: '2 to 10 letters, digits, spaces or hyphens',
};

/** Null when the postal code has the country's format; otherwise why not. */
export function postalCodeProblem(isoCountry: string, postalCode: string): string | null {
  const format = FORMATS[isoCountry] ?? ANYWHERE;
  if (format.pattern.test(postalCode.trim())) return null;
  return `The postal code "${postalCode}" does not have the format used in ${isoCountry}: ${format.example}.`;
}
