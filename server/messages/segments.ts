// How a text travels as SMS: GSM-7 fits 160 characters in one segment (153 each when split), anything else is
// UCS-2 with 70 UTF-16 code units (67). Characters of the GSM-7 extension table take two septets (an escape and
// the character) and are never split between segments; neither is a UTF-16 surrogate pair (most emoji), so a
// segment may hold one unit less than its room. The SMPP carrier sends exactly these segments.
/** GSM 03.38 default alphabet, by septet value (0x1B is the escape to the extension table). */
export const GSM7_TABLE =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: character → septet after the escape. */
export const GSM7_EXTENSION: Readonly<Record<string, number>> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};

const basic = new Set([...GSM7_TABLE].filter((ch) => ch !== '\x1b'));
const extended = new Set(Object.keys(GSM7_EXTENSION));

/** Septets of `text` when it is all GSM-7, else null. */
function gsm7Length(text: string): number | null {
  let septets = 0;
  for (const ch of text) {
    if (basic.has(ch)) septets += 1;
    else if (extended.has(ch)) septets += 2;
    else return null;
  }
  return septets;
}

export interface Segments {
  encoding: 'gsm7' | 'ucs2';
  /** The text of each segment, in order; one (maybe empty) segment when the text fits in one. */
  parts: string[];
}

/** Packs characters into parts of at most `room` units each, never splitting a character. */
function pack(chars: Iterable<string>, size: (ch: string) => number, room: number): string[] {
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const ch of chars) {
    const units = size(ch);
    if (used + units > room) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += ch;
    used += units;
  }
  parts.push(current);
  return parts;
}

export function splitSegments(text: string): Segments {
  const septets = gsm7Length(text);
  if (septets !== null) {
    if (septets <= 160) return { encoding: 'gsm7', parts: [text] };
    return { encoding: 'gsm7', parts: pack(text, (ch) => (extended.has(ch) ? 2 : 1), 153) };
  }
  if (text.length <= 70) return { encoding: 'ucs2', parts: [text] };
  // Iterating a string yields code points: a surrogate pair comes as one two-unit character.
  return { encoding: 'ucs2', parts: pack(text, (ch) => ch.length, 67) };
}

export function countSegments(text: string): number {
  return splitSegments(text).parts.length;
}

/**
 * Whether `text` has more than `max` characters, counted as the spec's `maxLength` counts them (Unicode code points:
 * an emoji outside the BMP is one, though two UTF-16 units). Counted only when its UTF-16 length is over `max`.
 */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let characters = 0;
  for (const _ of text) if (++characters > max) return true;
  return false;
}
