// Locality and region of a geographic range, from the geocoding description libphonenumber gives it
// ("Bay City, MI", "Nilópolis - RJ", "New Jersey", "Berlin"), plus the few tables the data lacks.

export interface Place {
  locality: string | null;
  /** State/province code where the country uses them (CA, NSW, ON), otherwise the region's name. */
  region: string | null;
}

const US_STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'Washington D.C.',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington State',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};

const CA_PROVINCES: Record<string, string> = {
  AB: 'Alberta',
  BC: 'British Columbia',
  MB: 'Manitoba',
  NB: 'New Brunswick',
  NL: 'Newfoundland and Labrador',
  NS: 'Nova Scotia',
  NT: 'Northwest Territories',
  NU: 'Nunavut',
  ON: 'Ontario',
  PE: 'Prince Edward Island',
  QC: 'Quebec',
  SK: 'Saskatchewan',
  YT: 'Yukon',
};

const AU_STATES: Record<string, string> = {
  ACT: 'Australian Capital Territory',
  NSW: 'New South Wales',
  NT: 'Northern Territory',
  QLD: 'Queensland',
  SA: 'South Australia',
  TAS: 'Tasmania',
  VIC: 'Victoria',
  WA: 'Western Australia',
};

/** Region codes with their names, for the countries whose geocoding data uses codes or names of states. */
const REGION_NAMES: Partial<Record<string, Record<string, string>>> = {
  US: US_STATES,
  CA: CA_PROVINCES,
  AU: AU_STATES,
};

/** France has no geocoding data in libphonenumber; its geographic numbers are zoned by their first digit. */
const FR_ZONES: Record<string, string> = {
  '1': 'Île-de-France',
  '2': 'Nord-Ouest',
  '3': 'Nord-Est',
  '4': 'Sud-Est',
  '5': 'Sud-Ouest',
};

function codeOf(names: Record<string, string> | undefined, name: string): string | null {
  if (!names) return null;
  for (const [code, full] of Object.entries(names)) if (full === name) return code;
  return null;
}

/** The place a geocoding description names, for one country. */
export function placeOf(iso: string, description: string): Place {
  const names = REGION_NAMES[iso];
  const stateOnly = codeOf(names, description);
  if (stateOnly) return { locality: null, region: stateOnly };
  const m = /^(.+?)(?:, | - )([A-Za-z][A-Za-z .]*)$/.exec(description);
  if (m) {
    const region = m[2].trim();
    // "Abashiri, Hokkaido" and "Guadalajara, JAL" both split the same way; a code stays a code.
    return { locality: m[1].trim(), region: names && !names[region] ? (codeOf(names, region) ?? region) : region };
  }
  return { locality: description, region: null };
}

/** The place of a number that has no geocoding entry, where a table knows one. */
export function fallbackPlace(iso: string, nationalNumber: string): Place | null {
  if (iso === 'FR' && FR_ZONES[nationalNumber[0]]) return { locality: null, region: FR_ZONES[nationalNumber[0]] };
  return null;
}

/** Whether `query` (code or name, any case, accents ignored) names this region. */
export function regionMatches(iso: string, region: string | null, query: string): boolean {
  if (!region) return false;
  const q = fold(query);
  if (fold(region) === q) return true;
  const name = REGION_NAMES[iso]?.[region];
  return name !== undefined && fold(name) === q;
}

export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();
}
