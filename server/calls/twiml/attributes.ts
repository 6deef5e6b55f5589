// Reading one TwiML element's attributes with Twilio's names and defaults. Every attribute is either read, on the
// element's list of attributes Twilio has but we do not act on (accepted so Twilio apps keep working), or refused.
import type { Element } from '@xmldom/xmldom';
import type { HttpMethod } from './verbs.js';

/** The first problem found in a document; parse.ts turns it into `{ ok: false, error }`. */
export class TwimlError extends Error {}

/** A value quoted in a message, cut to a readable length. */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `+` then 7 to 15 digits, the first not 0 (as the spec's phone number pattern). */
export function isE164(value: string): boolean {
  if (value.length < 8 || value.length > 16 || value[0] !== '+' || value[1] === '0') return false;
  for (let i = 1; i < value.length; i++) if (value.charCodeAt(i) < 48 || value.charCodeAt(i) > 57) return false;
  return true;
}

/** Only these characters, one or more. */
export function onlyOf(value: string, allowed: string): boolean {
  if (value === '') return false;
  for (const char of value) if (!allowed.includes(char)) return false;
  return true;
}

/**
 * A URL as written in a document: absolute http(s), or relative to the document's own URL. `what` names it in the
 * message (`<Gather> action`, `<Play> URL`).
 */
export function resolveUrl(what: string, value: string, documentUrl: string | null): string {
  let url: URL | null = null;
  if (URL.canParse(value)) url = new URL(value);
  else if (documentUrl === null) {
    throw new TwimlError(
      `${what} is relative ("${clip(value)}") but the instructions have no URL to resolve it against`,
    );
  } else if (URL.canParse(value, documentUrl)) url = new URL(value, documentUrl);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TwimlError(
      `${what} must be an http(s) URL, absolute or relative to the document's, got "${clip(value)}"`,
    );
  }
  return url.href;
}

export class Attributes {
  private readonly tag: string;

  /** Refuses any attribute of `element` that is neither in `read` nor in `ignored` (namespace declarations aside). */
  constructor(
    private readonly element: Element,
    read: readonly string[],
    ignored: readonly string[],
  ) {
    this.tag = `<${element.nodeName}>`;
    const attributes = element.attributes;
    for (let i = 0; i < attributes.length; i++) {
      const name = attributes.item(i)!.name;
      if (read.includes(name) || ignored.includes(name) || name === 'xmlns' || name.startsWith('xmlns:')) continue;
      throw new TwimlError(`${this.tag} has no attribute "${name}"`);
    }
  }

  private raw(name: string): string | null {
    return this.element.hasAttribute(name) ? this.element.getAttribute(name) : null;
  }

  private refuse(name: string, expected: string, value: string): never {
    throw new TwimlError(`${this.tag} ${name} must be ${expected}, got "${clip(value)}"`);
  }

  /** A whole number in [min, max] (surrounding spaces allowed). */
  whole(name: string, min: number, max: number, fallback: number): number;
  whole(name: string, min: number, max: number, fallback: null): number | null;
  whole(name: string, min: number, max: number, fallback: number | null): number | null {
    const value = this.raw(name);
    if (value === null) return fallback;
    const trimmed = value.trim();
    const n = onlyOf(trimmed, '0123456789') && trimmed.length <= 9 ? Number(trimmed) : NaN;
    if (!(n >= min && n <= max)) this.refuse(name, `a whole number from ${min} to ${max}`, value);
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === null) return fallback;
    const lower = value.trim().toLowerCase();
    if (lower !== 'true' && lower !== 'false') this.refuse(name, 'true or false', value);
    return lower === 'true';
  }

  /** GET or POST, in any case; POST by default. */
  method(name = 'method'): HttpMethod {
    const value = this.raw(name);
    if (value === null) return 'POST';
    const upper = value.trim().toUpperCase();
    if (upper !== 'GET' && upper !== 'POST') this.refuse(name, 'GET or POST', value);
    return upper;
  }

  url(name: string, documentUrl: string | null): string | null {
    const value = this.raw(name);
    return value === null ? null : resolveUrl(`${this.tag} ${name}`, value.trim(), documentUrl);
  }

  /** One of `values` (as written, after trimming). */
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === null) return fallback;
    const trimmed = value.trim();
    if (!(values as readonly string[]).includes(trimmed)) this.refuse(name, `one of ${values.join(', ')}`, value);
    return trimmed as T;
  }

  /** Checked by `valid`, which says what is expected when it is not. */
  string(name: string, valid: (value: string) => string | null): string | null {
    const value = this.raw(name);
    if (value === null) return null;
    const trimmed = value.trim();
    const expected = valid(trimmed);
    if (expected) this.refuse(name, expected, value);
    return trimmed;
  }
}
