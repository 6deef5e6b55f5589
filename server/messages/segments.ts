// How many segments a text costs: GSM-7 fits 160 characters in one segment (153 each when split), anything
// else is UCS-2 with 70 (67). Characters of the GSM-7 extension table take two septets.
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENDED = '\f^{}\\[~]|€';

const basic = new Set(GSM7_BASIC);
const extended = new Set(GSM7_EXTENDED);

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

export function countSegments(text: string): number {
  if (text.length === 0) return 1;
  const septets = gsm7Length(text);
  if (septets !== null) return septets <= 160 ? 1 : Math.ceil(septets / 153);
  // UCS-2 counts UTF-16 code units: a character outside the BMP (most emoji) takes two.
  return text.length <= 70 ? 1 : Math.ceil(text.length / 67);
}
