// Walking an element's children: the text it holds, or the elements it holds, refusing whatever else is inside.
import type { Element, Node } from '@xmldom/xmldom';
import { TwimlError, clip } from './attributes.js';

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;

/** Speech Synthesis Markup Twilio accepts inside `<Say>`: kept as the text it holds, its attributes ignored. */
const SSML = new Set([
  'break',
  'emphasis',
  'lang',
  'p',
  'phoneme',
  'prosody',
  's',
  'say-as',
  'sub',
  'w',
  'amazon:domain',
  'amazon:effect',
]);

const isText = (node: Node) => node.nodeType === TEXT || node.nodeType === CDATA;

/** Only whitespace (XML's: space, tab, CR, LF). */
export function blank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/** The text (untrimmed) and the elements directly inside `element`; comments and processing instructions aside. */
export function partsOf(element: Element): { text: string; elements: Element[] } {
  let text = '';
  const elements: Element[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (isText(node)) text += node.nodeValue ?? '';
    else if (node.nodeType === ELEMENT) elements.push(node as Element);
  }
  return { text, elements };
}

/** The text an element holds, untrimmed; an element inside it is refused (`what` says what the text is). */
export function textOf(element: Element, what: string): string {
  const { text, elements } = partsOf(element);
  if (elements.length > 0) {
    throw new TwimlError(`<${element.nodeName}> may hold only ${what} as text, got <${elements[0].nodeName}>`);
  }
  return text;
}

/** The elements inside `element`; text other than whitespace is refused. */
export function elementsOf(element: Element): Element[] {
  const { text, elements } = partsOf(element);
  if (!blank(text)) throw new TwimlError(`<${element.nodeName}> may not hold text, got "${clip(text.trim())}"`);
  return elements;
}

/** SSML nested deeper than this is refused (real markup nests a few levels; this bounds the recursion). */
const MAX_SSML_DEPTH = 16;

/** The text of a `<Say>`, with that of the SSML elements in it. */
export function speechOf(element: Element, depth = 0): string {
  if (depth > MAX_SSML_DEPTH) throw new TwimlError(`<Say> SSML may nest at most ${MAX_SSML_DEPTH} elements deep`);
  let text = '';
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (isText(node)) text += node.nodeValue ?? '';
    else if (node.nodeType !== ELEMENT) continue;
    else if (SSML.has(node.nodeName)) text += speechOf(node as Element, depth + 1);
    else throw new TwimlError(`<Say> may hold only text and SSML elements, got <${node.nodeName}>`);
  }
  return text;
}
