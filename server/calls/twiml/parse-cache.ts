// Inline TwiML parsed once: a call's instructions are checked at POST /v1/calls and parsed again when it is
// answered, and an app tends to send the same few documents. Parsing costs an XML parse (xmldom) each time; the
// result is a pure function of the text, so the recent ones are kept (frozen, as every caller shares them).
import { parseTwiml } from './parse.js';
import type { ParseResult } from './verbs.js';

/** Documents kept: each at most 4,000 characters (the spec's bound on `twiml`), so about 4 MB at most. */
const KEPT = 512;

const recent = new Map<string, ParseResult>();

/** `parseTwiml` of inline instructions (no document URL), from memory when the same text was parsed lately. */
export function parseInlineTwiml(xml: string): ParseResult {
  const known = recent.get(xml);
  if (known) return known;
  const parsed = deepFreeze(parseTwiml(xml, null));
  // Oldest first out: a Map iterates in insertion order.
  if (recent.size >= KEPT) recent.delete(recent.keys().next().value!);
  recent.set(xml, parsed);
  return parsed;
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const member of Object.values(value)) deepFreeze(member);
  return Object.freeze(value);
}
