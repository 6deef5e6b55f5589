// STAND-IN: replaced by part A at merge. Knows only <Response><Say>..</Say><Hangup/></Response>.
import type { Instructions, ParseResult, Verb } from './verbs.js';

export function parseTwiml(xml: string, documentUrl: string | null): ParseResult {
  const body = /^\s*(?:<\?xml[^>]*\?>\s*)?<Response>([\s\S]*)<\/Response>\s*$/.exec(xml)?.[1];
  if (body === undefined) return { ok: false, error: 'not a <Response> document' };
  const verbs: Verb[] = [];
  for (const m of body.matchAll(/<Say>([^<]*)<\/Say>|<Hangup\s*\/>/g))
    verbs.push(
      m[1] !== undefined ? { verb: 'Say', text: m[1], voice: 'man', language: 'en-US', loop: 1 } : { verb: 'Hangup' },
    );
  const instructions: Instructions = { verbs, url: documentUrl };
  return { ok: true, instructions };
}
