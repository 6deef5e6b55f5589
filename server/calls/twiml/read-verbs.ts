// One reader per verb: its attributes with Twilio's names, defaults and bounds, and what it may hold.
import type { Element } from '@xmldom/xmldom';
import { Attributes, TwimlError, clip, isE164, onlyOf, resolveUrl } from './attributes.js';
import { DIAL_IGNORED, GATHER_IGNORED, NUMBER_IGNORED, RECORD_IGNORED } from './ignored-attributes.js';
import { blank, elementsOf, partsOf, speechOf, textOf } from './nodes.js';
import type {
  DialRecord,
  DialVerb,
  GatherChild,
  GatherVerb,
  PauseVerb,
  PlayVerb,
  RecordVerb,
  RedirectVerb,
  SayVerb,
  Verb,
} from './verbs.js';

/** What every reader needs: where relative URLs are resolved, and the verb count (bounded per document). */
export interface ReadContext {
  documentUrl: string | null;
  verbs: number;
}

const MAX_VERBS = 100;
const VERB_NAMES = 'Say, Play, Pause, Gather, Record, Dial, Redirect, Hangup, Reject';
export const MAX_SAY_CHARS = 4096;
const KEYS = '0123456789*#';
// Twilio's default for Record, in its order.
const RECORD_FINISH_KEYS = '1234567890*#';
const DIAL_RECORD: readonly DialRecord[] = [
  'do-not-record',
  'record-from-answer',
  'record-from-ringing',
  'record-from-answer-dual',
  'record-from-ringing-dual',
];

function counted(context: ReadContext): void {
  if (++context.verbs > MAX_VERBS) throw new TwimlError(`the document has more than ${MAX_VERBS} verbs`);
}

function empty(element: Element): void {
  const { text, elements } = partsOf(element);
  if (elements.length > 0) throw new TwimlError(`<${element.nodeName}> must be empty, got <${elements[0].nodeName}>`);
  if (!blank(text)) throw new TwimlError(`<${element.nodeName}> must be empty, got "${clip(text.trim())}"`);
}

/** Twilio's loop="0" (for ever) is bounded to 1000 times. */
const loopOf = (attributes: Attributes) => attributes.whole('loop', 0, 1000, 1) || 1000;

function say(element: Element): SayVerb {
  const attributes = new Attributes(element, ['voice', 'language', 'loop'], []);
  const voice = attributes.string('voice', (v) => (v && v.length <= 64 ? null : 'a voice name (1 to 64 characters)'));
  const language = attributes.string('language', (v) =>
    onlyOf(v, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-') && v.length <= 35
      ? null
      : 'a language tag such as en-US',
  );
  const text = speechOf(element).trim();
  if (text.length < 1 || text.length > MAX_SAY_CHARS) {
    throw new TwimlError(`<Say> text must be 1 to ${MAX_SAY_CHARS} characters, got ${text.length}`);
  }
  return { verb: 'Say', text, voice: voice ?? 'man', language: language ?? 'en-US', loop: loopOf(attributes) };
}

function play(element: Element, context: ReadContext): PlayVerb {
  const attributes = new Attributes(element, ['loop', 'digits'], []);
  const digits = attributes.string('digits', (v) => (onlyOf(v, `${KEYS}w`) ? null : 'keys of 0-9, *, # and w'));
  const text = textOf(element, 'its URL').trim();
  if (!text && digits === null) throw new TwimlError('<Play> needs a URL (as its text) or digits');
  const url = text ? resolveUrl('<Play> URL', text, context.documentUrl) : null;
  return { verb: 'Play', url, digits, loop: loopOf(attributes) };
}

function pause(element: Element): PauseVerb {
  const attributes = new Attributes(element, ['length'], []);
  empty(element);
  return { verb: 'Pause', length: attributes.whole('length', 0, 600, 1) };
}

function inputOf(attributes: Attributes): GatherVerb['input'] {
  const value = attributes.string('input', (v) => {
    const words = v.split(' ').filter(Boolean);
    const known = words.every((w) => w === 'dtmf' || w === 'speech') && new Set(words).size === words.length;
    return known && words.length > 0 ? null : 'dtmf, speech or "dtmf speech"';
  });
  return value === null ? ['dtmf'] : (value.split(' ').filter(Boolean) as GatherVerb['input']);
}

function gather(element: Element, context: ReadContext): GatherVerb {
  const read = ['input', 'numDigits', 'timeout', 'finishOnKey', 'action', 'method', 'actionOnEmptyResult'];
  const attributes = new Attributes(element, read, GATHER_IGNORED);
  const finishOnKey = attributes.string('finishOnKey', (v) =>
    v === '' || (v.length === 1 && KEYS.includes(v)) ? null : 'one key of 0-9, * or #, or empty',
  );
  const gathered: GatherVerb = {
    verb: 'Gather',
    input: inputOf(attributes),
    numDigits: attributes.whole('numDigits', 1, 100, null),
    timeout: attributes.whole('timeout', 1, 600, 5),
    finishOnKey: finishOnKey ?? '#',
    action: attributes.url('action', context.documentUrl),
    method: attributes.method(),
    actionOnEmptyResult: attributes.bool('actionOnEmptyResult', false),
    children: [],
  };
  for (const child of elementsOf(element)) {
    counted(context);
    gathered.children.push(gatherChild(child, context));
  }
  return gathered;
}

function gatherChild(element: Element, context: ReadContext): GatherChild {
  if (element.nodeName === 'Say') return say(element);
  if (element.nodeName === 'Play') return play(element, context);
  if (element.nodeName === 'Pause') return pause(element);
  throw new TwimlError(`<Gather> may hold only <Say>, <Play> and <Pause>, got <${element.nodeName}>`);
}

function record(element: Element, context: ReadContext): RecordVerb {
  const read = ['maxLength', 'timeout', 'finishOnKey', 'playBeep', 'action', 'method', 'recordingStatusCallback'];
  const attributes = new Attributes(element, read, RECORD_IGNORED);
  empty(element);
  const finishOnKey = attributes.string('finishOnKey', (v) =>
    v === '' || onlyOf(v, KEYS) ? null : 'keys of 0-9, * and #, or empty',
  );
  return {
    verb: 'Record',
    maxLength: attributes.whole('maxLength', 1, 14400, 3600),
    timeout: attributes.whole('timeout', 0, 3600, 5),
    finishOnKey: finishOnKey ?? RECORD_FINISH_KEYS,
    playBeep: attributes.bool('playBeep', true),
    action: attributes.url('action', context.documentUrl),
    method: attributes.method(),
    recordingStatusCallback: attributes.url('recordingStatusCallback', context.documentUrl),
  };
}

/** The number dialled: the text of the one `<Number>` noun, or the verb's own text. */
function dialled(element: Element): string {
  const { text, elements } = partsOf(element);
  const other = elements.find((e) => e.nodeName !== 'Number');
  if (other) {
    const unsupported = 'Client, Conference, Queue, Sip and Sim are not supported';
    throw new TwimlError(`<Dial> may hold only a <Number> (${unsupported}), got <${other.nodeName}>`);
  }
  if (elements.length > 1) throw new TwimlError('only one <Number> per <Dial> is supported');
  if (elements.length === 1 && !blank(text)) {
    throw new TwimlError('<Dial> holds either one <Number> or the number as its text, not both');
  }
  if (elements.length === 0) {
    const number = text.trim();
    if (!number) throw new TwimlError('<Dial> needs a number: one <Number>, or the number as its text');
    if (!isE164(number))
      throw new TwimlError(`<Dial> number must be an E.164 number such as +14155550100, got "${clip(number)}"`);
    return number;
  }
  new Attributes(elements[0], [], NUMBER_IGNORED);
  const number = textOf(elements[0], 'the number').trim();
  if (!isE164(number))
    throw new TwimlError(`<Number> must be an E.164 number such as +14155550100, got "${clip(number)}"`);
  return number;
}

function dial(element: Element, context: ReadContext): DialVerb {
  const read = ['callerId', 'timeout', 'timeLimit', 'action', 'method', 'record'];
  const attributes = new Attributes(element, read, DIAL_IGNORED);
  const callerId = attributes.string('callerId', (v) => (isE164(v) ? null : 'an E.164 number such as +14155550100'));
  const recordAs = attributes.oneOf('record', ['true', 'false', ...DIAL_RECORD], 'do-not-record');
  return {
    verb: 'Dial',
    number: dialled(element),
    callerId,
    timeout: attributes.whole('timeout', 5, 600, 30),
    timeLimit: attributes.whole('timeLimit', 1, 14400, 14400),
    action: attributes.url('action', context.documentUrl),
    method: attributes.method(),
    record: recordAs === 'true' ? 'record-from-answer' : recordAs === 'false' ? 'do-not-record' : recordAs,
  };
}

function redirect(element: Element, context: ReadContext): RedirectVerb {
  const attributes = new Attributes(element, ['method'], []);
  const text = textOf(element, 'its URL').trim();
  if (!text) throw new TwimlError('<Redirect> needs a URL (as its text)');
  return {
    verb: 'Redirect',
    url: resolveUrl('<Redirect> URL', text, context.documentUrl),
    method: attributes.method(),
  };
}

/** A verb directly inside `<Response>`. */
export function readVerb(element: Element, context: ReadContext): Verb {
  counted(context);
  switch (element.nodeName) {
    case 'Say':
      return say(element);
    case 'Play':
      return play(element, context);
    case 'Pause':
      return pause(element);
    case 'Gather':
      return gather(element, context);
    case 'Record':
      return record(element, context);
    case 'Dial':
      return dial(element, context);
    case 'Redirect':
      return redirect(element, context);
    case 'Hangup':
      new Attributes(element, [], []);
      empty(element);
      return { verb: 'Hangup' };
    case 'Reject': {
      const reason = new Attributes(element, ['reason'], []).oneOf('reason', ['rejected', 'busy'], 'rejected');
      empty(element);
      return { verb: 'Reject', reason };
    }
    default:
      throw new TwimlError(`<${element.nodeName}> is not a supported verb (supported: ${VERB_NAMES})`);
  }
}
