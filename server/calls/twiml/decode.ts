// A fetched document's bytes as text: by a leading byte order mark (dropped; it decides, as in the WHATWG and XML
// rules), else the Content-Type's charset, else the XML declaration's encoding, else UTF-8 (as Twilio reads them).
const BOMS: readonly (readonly [Buffer, string])[] = [
  [Buffer.from([0xef, 0xbb, 0xbf]), 'utf-8'],
  [Buffer.from([0xff, 0xfe]), 'utf-16le'],
  [Buffer.from([0xfe, 0xff]), 'utf-16be'],
];
/** Encodings are declared in ASCII at the very start of an XML document. */
const DECLARATION = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

export type Decoded = { ok: true; text: string } | { ok: false; error: string };

export function decodeDocument(raw: Buffer, contentType: string): Decoded {
  const bom = BOMS.find(([mark]) => raw.subarray(0, mark.length).equals(mark));
  const bytes = bom ? raw.subarray(bom[0].length) : raw;
  const charset =
    bom?.[1] ??
    /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1] ??
    DECLARATION.exec(bytes.subarray(0, 256).toString('latin1'))?.[1] ??
    'utf-8';
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return { ok: false, error: `its charset "${charset}" is not supported` };
  }
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    return { ok: false, error: `it is not valid ${decoder.encoding}` };
  }
}
