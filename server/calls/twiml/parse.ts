// TwiML to instructions: a `<Response>` of the supported verbs, checked whole before a call runs any of it. Any XML
// warning is a refusal too (xmldom would otherwise guess), and the first problem found is the one reported.
import { DOMParser, type Document } from '@xmldom/xmldom';
import { Attributes, TwimlError } from './attributes.js';
import { elementsOf } from './nodes.js';
import { readVerb, type ReadContext } from './read-verbs.js';
import type { ParseResult } from './verbs.js';

const DOCUMENT_TYPE = 10;
// Twilio's SSML examples use the amazon: prefix without declaring it.
const PREDECLARED = { amazon: 'https://www.amazon.com/polly/ssml' };

function xmlOf(xml: string): Document {
  let problem: string | null = null;
  const parser = new DOMParser({
    locator: false,
    xmlns: PREDECLARED,
    onError: (_level, message) => {
      problem ??= message;
      throw new TwimlError(message);
    },
  });
  try {
    return parser.parseFromString(xml, 'text/xml');
  } catch (error) {
    throw new TwimlError(`not XML: ${problem ?? (error as Error).message}`);
  }
}

export function parseTwiml(xml: string, documentUrl: string | null): ParseResult {
  try {
    const document = xmlOf(xml);
    for (let node = document.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === DOCUMENT_TYPE) throw new TwimlError('a DOCTYPE is not allowed');
    }
    const root = document.documentElement!;
    if (root.nodeName !== 'Response') {
      throw new TwimlError(`the root element must be <Response>, got <${root.nodeName}>`);
    }
    new Attributes(root, [], []);
    const context: ReadContext = { documentUrl, verbs: 0 };
    const verbs = elementsOf(root).map((element) => readVerb(element, context));
    return { ok: true, instructions: { verbs, url: documentUrl } };
  } catch (error) {
    if (error instanceof TwimlError) return { ok: false, error: error.message };
    throw error;
  }
}
