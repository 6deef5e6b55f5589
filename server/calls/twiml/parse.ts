// STAND-IN: replaced by part A at merge. Knows only <Response> with <Say>text</Say>, <Dial>+E164</Dial>, <Hangup/>.
import type { Instructions, ParseResult, Verb } from './verbs.js';

export function parseTwiml(xml: string, documentUrl: string | null): ParseResult {
  const body = /^\s*(?:<\?xml[^>]*\?>\s*)?<Response>([\s\S]*)<\/Response>\s*$/.exec(xml)?.[1];
  if (body === undefined) return { ok: false, error: 'not a <Response> document' };
  const verbs: Verb[] = [];
  for (const m of body.matchAll(/<Say>([^<]*)<\/Say>|<Dial>([^<]*)<\/Dial>|<Hangup\s*\/>/g)) {
    const [, text, number] = m;
    if (number !== undefined) {
      const dial = { callerId: null, timeout: 30, timeLimit: 14400, action: null, record: 'do-not-record' } as const;
      verbs.push({ verb: 'Dial', number, method: 'POST', ...dial });
      continue;
    }
    verbs.push(
      text !== undefined ? { verb: 'Say', text, voice: 'man', language: 'en-US', loop: 1 } : { verb: 'Hangup' },
    );
  }
  const instructions: Instructions = { verbs, url: documentUrl };
  return { ok: true, instructions };
}
