// A fetched document's bytes as text: by the Content-Type's charset, else the XML declaration's encoding, else
// UTF-8 (as Twilio reads them); a leading byte order mark is dropped.
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Encodings are declared in ASCII at the very start of an XML document. */
const DECLARATION = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

export type Decoded = { ok: true; text: string } | { ok: false; error: string };

export function decodeDocument(raw: Buffer, contentType: string): Decoded {
  const bytes = raw.subarray(0, 3).equals(UTF8_BOM) ? raw.subarray(3) : raw;
  const charset =
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
