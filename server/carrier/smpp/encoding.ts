// Text to SMPP short_message bytes and back. GSM-7 travels unpacked (one septet per byte, data_coding 0), as
// SMSCs expect in short_message; anything else as UCS-2 (UTF-16BE, data_coding 8). The split into parts is
// server/messages/segments.ts's, so the parts sent are the segments counted and priced.
import { GSM7_EXTENSION, GSM7_TABLE, splitSegments } from '../../messages/segments.js';
import type { DeliverSm } from './session.js';

const ESCAPE = 0x1b;

const septetOf = new Map([...GSM7_TABLE].map((ch, i) => [ch, i]));
const extensionOf = new Map(Object.entries(GSM7_EXTENSION).map(([ch, septet]) => [septet, ch]));

const DATA_CODING_GSM7 = 0;
const DATA_CODING_UCS2 = 8;
const ESM_CLASS_UDHI = 0x40;

function encodeGsm7(text: string): Buffer {
  const bytes: number[] = [];
  for (const ch of text) {
    const septet = septetOf.get(ch);
    if (septet !== undefined && septet !== ESCAPE) bytes.push(septet);
    else if (ch in GSM7_EXTENSION) bytes.push(ESCAPE, GSM7_EXTENSION[ch]);
    else throw new Error(`not a GSM-7 character: ${JSON.stringify(ch)}`);
  }
  return Buffer.from(bytes);
}

function encodeUcs2(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

function decodeGsm7(bytes: Buffer): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const septet = bytes[i] & 0x7f;
    if (septet === ESCAPE) {
      if (i + 1 >= bytes.length) break;
      const next = bytes[++i] & 0x7f;
      // An unknown extension shows the default character, as 03.38 says a receiver should.
      text += extensionOf.get(next) ?? GSM7_TABLE[next];
    } else {
      text += GSM7_TABLE[septet];
    }
  }
  return text;
}

function decodeUcs2(bytes: Buffer): string {
  const even = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return even.swap16().toString('utf16le');
}

/** The UDH of part `index` (1-based) of `total`: IEI 00, concatenation with an 8-bit reference. */
function concatenationHeader(reference: number, total: number, index: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, reference & 0xff, total, index]);
}

/**
 * Parts of a message as SMPP sends them, with an 8-bit-reference UDH (05 00 03 ref n i) when more than one; the
 * count equals countSegments(body).
 */
export function encodeMessage(
  body: string,
  reference: number,
): { dataCoding: number; esmClass: number; parts: Buffer[] } {
  const { encoding, parts } = splitSegments(body);
  const encode = encoding === 'gsm7' ? encodeGsm7 : encodeUcs2;
  const dataCoding = encoding === 'gsm7' ? DATA_CODING_GSM7 : DATA_CODING_UCS2;
  if (parts.length === 1) return { dataCoding, esmClass: 0, parts: [encode(parts[0])] };
  return {
    dataCoding,
    esmClass: ESM_CLASS_UDHI,
    parts: parts.map((text, i) => Buffer.concat([concatenationHeader(reference, parts.length, i + 1), encode(text)])),
  };
}

/** Decodes by data_coding: the GSM 03.38 general group and the SMPP-specific values senders use. */
function decodeText(dataCoding: number, bytes: Buffer): string {
  if (dataCoding === 0) return decodeGsm7(bytes);
  if (dataCoding === 1) return bytes.toString('ascii'); // IA5
  if (dataCoding === 3) return bytes.toString('latin1');
  if ((dataCoding & 0xc0) === 0 && (dataCoding & 0x0c) === 0x08) return decodeUcs2(bytes);
  if ((dataCoding & 0xc0) === 0 && (dataCoding & 0x0c) === 0) return decodeGsm7(bytes);
  if ((dataCoding & 0xf0) === 0xf0) return dataCoding & 0x04 ? bytes.toString('latin1') : decodeGsm7(bytes);
  return bytes.toString('latin1');
}

interface Concatenation {
  reference: number;
  total: number;
  index: number;
}

/** The concatenation element of a UDH: IEI 00 (8-bit reference) or 08 (16-bit reference). */
function findConcatenation(udh: Buffer): Concatenation | undefined {
  for (let i = 0; i + 1 < udh.length;) {
    const iei = udh[i];
    const length = udh[i + 1];
    const data = udh.subarray(i + 2, i + 2 + length);
    if (iei === 0x00 && length === 3 && data.length === 3) {
      return { reference: data[0], total: data[1], index: data[2] };
    }
    if (iei === 0x08 && length === 4 && data.length === 4) {
      return { reference: data.readUInt16BE(0), total: data[2], index: data[3] };
    }
    i += 2 + length;
  }
  return undefined;
}

/** The text and concatenation info of an MO deliver_sm. */
export function decodeShortMessage(pdu: Pick<DeliverSm, 'esmClass' | 'dataCoding' | 'shortMessage'>): {
  text: string;
  concat?: Concatenation;
} {
  let bytes = pdu.shortMessage;
  let concat: Concatenation | undefined;
  if (pdu.esmClass & ESM_CLASS_UDHI && bytes.length > 0) {
    const udhLength = bytes[0];
    concat = findConcatenation(bytes.subarray(1, 1 + udhLength));
    bytes = bytes.subarray(1 + udhLength);
  }
  const text = decodeText(pdu.dataCoding, bytes);
  return concat && concat.total > 1 ? { text, concat } : { text };
}
