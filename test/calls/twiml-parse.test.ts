// The TwiML parser: Twilio's attribute names and defaults, relative URLs, the attributes accepted and ignored, and a
// readable refusal (naming element and attribute) for everything else.
import { describe, expect, it } from 'vitest';
import { parseTwiml } from '../../server/calls/twiml/parse.js';
import {
  DIAL_IGNORED,
  GATHER_IGNORED,
  NUMBER_IGNORED,
  RECORD_IGNORED,
} from '../../server/calls/twiml/ignored-attributes.js';
import type { Verb } from '../../server/calls/twiml/verbs.js';

const DOC = 'https://app.example.com/voice/start.xml?step=1';

/** The verbs of `<Response>${body}</Response>`, or the refusal's message. */
function parse(body: string, url: string | null = DOC): Verb[] | string {
  const result = parseTwiml(`<Response>${body}</Response>`, url);
  return result.ok ? result.instructions.verbs : result.error;
}

const say = { verb: 'Say', text: 'Hi', voice: 'man', language: 'en-US', loop: 1 };

describe('each verb with no attributes', () => {
  it.each<[string, Verb]>([
    ['<Say>Hi</Say>', say as Verb],
    [
      '<Play>https://cdn.example.com/a.mp3</Play>',
      { verb: 'Play', url: 'https://cdn.example.com/a.mp3', digits: null, loop: 1 },
    ],
    ['<Pause/>', { verb: 'Pause', length: 1 }],
    [
      '<Gather/>',
      {
        verb: 'Gather',
        input: ['dtmf'],
        numDigits: null,
        timeout: 5,
        finishOnKey: '#',
        action: null,
        method: 'POST',
        actionOnEmptyResult: false,
        children: [],
      },
    ],
    [
      '<Record/>',
      {
        verb: 'Record',
        maxLength: 3600,
        timeout: 5,
        finishOnKey: '1234567890*#',
        playBeep: true,
        action: null,
        method: 'POST',
        recordingStatusCallback: null,
      },
    ],
    [
      '<Dial>+14155550100</Dial>',
      {
        verb: 'Dial',
        number: '+14155550100',
        callerId: null,
        timeout: 30,
        timeLimit: 14400,
        action: null,
        method: 'POST',
        record: 'do-not-record',
      },
    ],
    [
      '<Redirect>https://app.example.com/next</Redirect>',
      { verb: 'Redirect', url: 'https://app.example.com/next', method: 'POST' },
    ],
    ['<Hangup/>', { verb: 'Hangup' }],
    ['<Reject/>', { verb: 'Reject', reason: 'rejected' }],
  ])('%s has Twilio defaults', (body, verb) => {
    expect(parse(body)).toEqual([verb]);
  });

  it('an empty <Response> is an empty document, with its URL', () => {
    expect(parseTwiml('<?xml version="1.0" encoding="UTF-8"?>\n<Response/>', DOC)).toEqual({
      ok: true,
      instructions: { verbs: [], url: DOC },
    });
  });
});

describe('attributes read as Twilio writes them', () => {
  it.each<[string, Partial<Verb> & { verb: Verb['verb'] }]>([
    [
      '<Say voice="Polly.Joanna" language="fr-FR" loop="3">Hi</Say>',
      { verb: 'Say', voice: 'Polly.Joanna', language: 'fr-FR', loop: 3 },
    ],
    ['<Say loop="0">Hi</Say>', { verb: 'Say', loop: 1000 }],
    ['<Say>  Hi <break time="1s"/><emphasis level="strong">you</emphasis>\n</Say>', { verb: 'Say', text: 'Hi you' }],
    ['<Say><amazon:effect name="whispered">Hi</amazon:effect></Say>', { verb: 'Say', text: 'Hi' }],
    ['<Say><![CDATA[a < b]]></Say>', { verb: 'Say', text: 'a < b' }],
    ['<Play digits="12w#*0"/>', { verb: 'Play', url: null, digits: '12w#*0', loop: 1 }],
    [
      '<Play loop="0"> https://cdn.example.com/a.wav </Play>',
      { verb: 'Play', url: 'https://cdn.example.com/a.wav', loop: 1000 },
    ],
    ['<Pause length="0"/>', { verb: 'Pause', length: 0 }],
    ['<Pause length=" 600 "/>', { verb: 'Pause', length: 600 }],
    [
      '<Gather input="speech dtmf" numDigits="4" timeout="10" finishOnKey="*"/>',
      { verb: 'Gather', input: ['speech', 'dtmf'], numDigits: 4, timeout: 10, finishOnKey: '*' },
    ],
    [
      '<Gather input="speech" finishOnKey="" method="get" actionOnEmptyResult="TRUE"/>',
      { verb: 'Gather', input: ['speech'], finishOnKey: '', method: 'GET', actionOnEmptyResult: true },
    ],
    [
      '<Record maxLength="14400" timeout="0" finishOnKey="" playBeep="false" method="Get"/>',
      { verb: 'Record', maxLength: 14400, timeout: 0, finishOnKey: '', playBeep: false, method: 'GET' },
    ],
    ['<Record finishOnKey="#*"/>', { verb: 'Record', finishOnKey: '#*' }],
    ['<Dial><Number>+442071234567</Number></Dial>', { verb: 'Dial', number: '+442071234567' }],
    [
      '<Dial callerId="+14155550199" timeout="5" timeLimit="60">+14155550100</Dial>',
      { verb: 'Dial', callerId: '+14155550199', timeout: 5, timeLimit: 60 },
    ],
    ['<Dial record="true">+14155550100</Dial>', { verb: 'Dial', record: 'record-from-answer' }],
    ['<Dial record="false">+14155550100</Dial>', { verb: 'Dial', record: 'do-not-record' }],
    [
      '<Dial record="record-from-ringing-dual">+14155550100</Dial>',
      { verb: 'Dial', record: 'record-from-ringing-dual' },
    ],
    ['<Redirect method="GET">https://app.example.com/next</Redirect>', { verb: 'Redirect', method: 'GET' }],
    ['<Reject reason="busy"/>', { verb: 'Reject', reason: 'busy' }],
  ])('%s', (body, expected) => {
    const verbs = parse(body);
    expect(verbs).toHaveLength(1);
    expect((verbs as Verb[])[0]).toMatchObject(expected);
  });

  it('<Gather> holds its Say, Play and Pause in order', () => {
    const verbs = parse('<Gather><Say>Hi</Say><!-- a comment --><Play digits="1"/><Pause length="2"/></Gather>');
    expect((verbs as Verb[])[0]).toMatchObject({
      children: [say, { verb: 'Play', digits: '1' }, { verb: 'Pause', length: 2 }],
    });
  });
});

describe('URLs', () => {
  it.each([
    ['<Play>clip.mp3</Play>', 'url', 'https://app.example.com/voice/clip.mp3'],
    ['<Play>/media/clip.mp3</Play>', 'url', 'https://app.example.com/media/clip.mp3'],
    ['<Redirect>../next?x=1</Redirect>', 'url', 'https://app.example.com/next?x=1'],
    ['<Gather action="gathered"/>', 'action', 'https://app.example.com/voice/gathered'],
    ['<Record action="?done=1"/>', 'action', 'https://app.example.com/voice/start.xml?done=1'],
    ['<Record recordingStatusCallback="//cb.example.com/r"/>', 'recordingStatusCallback', 'https://cb.example.com/r'],
    ['<Dial action="http://other.example.com/d">+14155550100</Dial>', 'action', 'http://other.example.com/d'],
  ])('%s resolves its %s against the document URL', (body, field, url) => {
    expect((parse(body) as Verb[])[0]).toMatchObject({ [field]: url });
  });

  it.each([
    [
      '<Play>clip.mp3</Play>',
      '<Play> URL is relative ("clip.mp3") but the instructions have no URL to resolve it against',
    ],
    [
      '<Gather action="/g"/>',
      '<Gather> action is relative ("/g") but the instructions have no URL to resolve it against',
    ],
    [
      '<Redirect>next</Redirect>',
      '<Redirect> URL is relative ("next") but the instructions have no URL to resolve it against',
    ],
  ])('%s is refused in a document given inline (no URL)', (body, error) => {
    expect(parse(body, null)).toBe(error);
  });

  it('absolute URLs need no document URL', () => {
    expect(parse('<Redirect>http://app.example.com/x</Redirect>', null)).toEqual([
      { verb: 'Redirect', url: 'http://app.example.com/x', method: 'POST' },
    ]);
  });
});

describe('attributes Twilio has that we do not act on', () => {
  const cases = [
    ...GATHER_IGNORED.map((name) => `<Gather ${name}="x"/>`),
    ...RECORD_IGNORED.map((name) => `<Record ${name}="x"/>`),
    ...DIAL_IGNORED.map((name) => `<Dial ${name}="x">+14155550100</Dial>`),
    ...NUMBER_IGNORED.map((name) => `<Dial><Number ${name}="x">+14155550100</Number></Dial>`),
  ];
  it.each(cases)('%s is accepted', (body) => {
    expect(parse(body)).toHaveLength(1);
  });

  it('a namespace declaration on <Response> is accepted', () => {
    expect(parseTwiml('<Response xmlns="http://www.twilio.com/twiml"><Hangup/></Response>', null)).toMatchObject({
      ok: true,
      instructions: { verbs: [{ verb: 'Hangup' }] },
    });
  });
});

describe('refusals name the element and attribute at fault', () => {
  it.each([
    // not XML, or not a <Response>
    ['', 'not XML: missing root element'],
    ['Hello there', 'not XML: missing root element'],
    ['<Response><Say>Hi</Response>', expect.stringMatching(/^not XML: /)],
    ['<Response><Say>a &nbsp; b</Say></Response>', 'not XML: entity not found:&nbsp;'],
    ['<!DOCTYPE Response><Response/>', 'a DOCTYPE is not allowed'],
    ['<Reponse><Say>Hi</Say></Reponse>', 'the root element must be <Response>, got <Reponse>'],
    ['<Response lang="en"/>', '<Response> has no attribute "lang"'],
    ['<Response>Hello</Response>', '<Response> may not hold text, got "Hello"'],
    // verbs and nesting
    [
      '<Response><Enqueue>q</Enqueue></Response>',
      '<Enqueue> is not a supported verb (supported: Say, Play, Pause, Gather, Record, Dial, Redirect, Hangup, Reject)',
    ],
    [
      '<Response><say>Hi</say></Response>',
      '<say> is not a supported verb (supported: Say, Play, Pause, Gather, Record, Dial, Redirect, Hangup, Reject)',
    ],
    [
      '<Response><Gather><Dial>+14155550100</Dial></Gather></Response>',
      '<Gather> may hold only <Say>, <Play> and <Pause>, got <Dial>',
    ],
    [
      '<Response><Gather><Gather/></Gather></Response>',
      '<Gather> may hold only <Say>, <Play> and <Pause>, got <Gather>',
    ],
    ['<Response><Gather>Press 1</Gather></Response>', '<Gather> may not hold text, got "Press 1"'],
    ['<Response><Say>Hi <Pause/></Say></Response>', '<Say> may hold only text and SSML elements, got <Pause>'],
    ['<Response><Play><Say>x</Say></Play></Response>', '<Play> may hold only its URL as text, got <Say>'],
    ['<Response><Pause>3</Pause></Response>', '<Pause> must be empty, got "3"'],
    ['<Response><Hangup><Say>Bye</Say></Hangup></Response>', '<Hangup> must be empty, got <Say>'],
    ['<Response><Record>x</Record></Response>', '<Record> must be empty, got "x"'],
    // Say and Play
    ['<Response><Say>  </Say></Response>', '<Say> text must be 1 to 4096 characters, got 0'],
    [`<Response><Say>${'a'.repeat(4097)}</Say></Response>`, '<Say> text must be 1 to 4096 characters, got 4097'],
    ['<Response><Say loop="-1">Hi</Say></Response>', '<Say> loop must be a whole number from 0 to 1000, got "-1"'],
    ['<Response><Say loop="1001">Hi</Say></Response>', '<Say> loop must be a whole number from 0 to 1000, got "1001"'],
    ['<Response><Say loop="2.5">Hi</Say></Response>', '<Say> loop must be a whole number from 0 to 1000, got "2.5"'],
    [
      '<Response><Say language="en_US!">Hi</Say></Response>',
      '<Say> language must be a language tag such as en-US, got "en_US!"',
    ],
    ['<Response><Say voice="">Hi</Say></Response>', '<Say> voice must be a voice name (1 to 64 characters), got ""'],
    ['<Response><Say Voice="alice">Hi</Say></Response>', '<Say> has no attribute "Voice"'],
    ['<Response><Play/></Response>', '<Play> needs a URL (as its text) or digits'],
    ['<Response><Play digits="12a"/></Response>', '<Play> digits must be keys of 0-9, *, # and w, got "12a"'],
    [
      '<Response><Play>ftp://x.example.com/a.mp3</Play></Response>',
      '<Play> URL must be an http(s) URL, absolute or relative to the document\'s, got "ftp://x.example.com/a.mp3"',
    ],
    ['<Response><Pause length="601"/></Response>', '<Pause> length must be a whole number from 0 to 600, got "601"'],
    // Gather
    [
      '<Response><Gather numDigits="x"/></Response>',
      '<Gather> numDigits must be a whole number from 1 to 100, got "x"',
    ],
    [
      '<Response><Gather numDigits="0"/></Response>',
      '<Gather> numDigits must be a whole number from 1 to 100, got "0"',
    ],
    ['<Response><Gather timeout="0"/></Response>', '<Gather> timeout must be a whole number from 1 to 600, got "0"'],
    [
      '<Response><Gather input="voice"/></Response>',
      '<Gather> input must be dtmf, speech or "dtmf speech", got "voice"',
    ],
    [
      '<Response><Gather input="dtmf dtmf"/></Response>',
      '<Gather> input must be dtmf, speech or "dtmf speech", got "dtmf dtmf"',
    ],
    [
      '<Response><Gather finishOnKey="##"/></Response>',
      '<Gather> finishOnKey must be one key of 0-9, * or #, or empty, got "##"',
    ],
    ['<Response><Gather method="PUT"/></Response>', '<Gather> method must be GET or POST, got "PUT"'],
    [
      '<Response><Gather actionOnEmptyResult="yes"/></Response>',
      '<Gather> actionOnEmptyResult must be true or false, got "yes"',
    ],
    [
      '<Response><Gather action="javascript:alert(1)"/></Response>',
      '<Gather> action must be an http(s) URL, absolute or relative to the document\'s, got "javascript:alert(1)"',
    ],
    ['<Response><Gather numdigits="4"/></Response>', '<Gather> has no attribute "numdigits"'],
    // Record
    [
      '<Response><Record maxLength="0"/></Response>',
      '<Record> maxLength must be a whole number from 1 to 14400, got "0"',
    ],
    [
      '<Response><Record maxLength="14401"/></Response>',
      '<Record> maxLength must be a whole number from 1 to 14400, got "14401"',
    ],
    [
      '<Response><Record finishOnKey="1a"/></Response>',
      '<Record> finishOnKey must be keys of 0-9, * and #, or empty, got "1a"',
    ],
    ['<Response><Record playBeep="1"/></Response>', '<Record> playBeep must be true or false, got "1"'],
    ['<Response><Record transcribeLanguage="en"/></Response>', '<Record> has no attribute "transcribeLanguage"'],
    // Dial
    ['<Response><Dial/></Response>', '<Dial> needs a number: one <Number>, or the number as its text'],
    [
      '<Response><Dial>415-555-0100</Dial></Response>',
      '<Dial> number must be an E.164 number such as +14155550100, got "415-555-0100"',
    ],
    [
      '<Response><Dial><Number>+0123</Number></Dial></Response>',
      '<Number> must be an E.164 number such as +14155550100, got "+0123"',
    ],
    [
      '<Response><Dial><Number>+14155550100</Number><Number>+14155550101</Number></Dial></Response>',
      'only one <Number> per <Dial> is supported',
    ],
    [
      '<Response><Dial>+14155550100<Number>+14155550101</Number></Dial></Response>',
      '<Dial> holds either one <Number> or the number as its text, not both',
    ],
    [
      '<Response><Dial><Client>alice</Client></Dial></Response>',
      '<Dial> may hold only a <Number> (Client, Conference, Queue, Sip and Sim are not supported), got <Client>',
    ],
    ['<Response><Dial><Number foo="1">+14155550100</Number></Dial></Response>', '<Number> has no attribute "foo"'],
    [
      '<Response><Dial timeout="4">+14155550100</Dial></Response>',
      '<Dial> timeout must be a whole number from 5 to 600, got "4"',
    ],
    [
      '<Response><Dial timeLimit="0">+14155550100</Dial></Response>',
      '<Dial> timeLimit must be a whole number from 1 to 14400, got "0"',
    ],
    [
      '<Response><Dial callerId="alice">+14155550100</Dial></Response>',
      '<Dial> callerId must be an E.164 number such as +14155550100, got "alice"',
    ],
    [
      '<Response><Dial record="yes">+14155550100</Dial></Response>',
      '<Dial> record must be one of true, false, do-not-record, record-from-answer, record-from-ringing, ' +
        'record-from-answer-dual, record-from-ringing-dual, got "yes"',
    ],
    // Redirect, Reject
    ['<Response><Redirect/></Response>', '<Redirect> needs a URL (as its text)'],
    [
      '<Response><Redirect method="DELETE">/x</Redirect></Response>',
      '<Redirect> method must be GET or POST, got "DELETE"',
    ],
    [
      '<Response><Reject reason="declined"/></Response>',
      '<Reject> reason must be one of rejected, busy, got "declined"',
    ],
  ])('%s', (xml, error) => {
    expect(parseTwiml(xml, DOC)).toEqual({ ok: false, error });
  });

  it('keeps the first problem found', () => {
    expect(parse('<Say loop="x">Hi</Say><Pause length="y"/>')).toBe(
      '<Say> loop must be a whole number from 0 to 1000, got "x"',
    );
  });

  it('cuts a long value in its message', () => {
    expect(parse(`<Pause length="${'9'.repeat(100)}"/>`)).toBe(
      `<Pause> length must be a whole number from 0 to 600, got "${'9'.repeat(60)}…"`,
    );
  });
});

describe('bounds', () => {
  it('refuses SSML nested more than 16 deep inside <Say>', () => {
    expect(parse(`<Say>${'<p>'.repeat(16)}Hi${'</p>'.repeat(16)}</Say>`)).toMatchObject([{ text: 'Hi' }]);
    expect(parse(`<Say>${'<p>'.repeat(17)}Hi${'</p>'.repeat(17)}</Say>`)).toBe(
      '<Say> SSML may nest at most 16 elements deep',
    );
  });

  it('refuses a deeply nested document without overflowing the stack', () => {
    expect(parse(`<Say>${'<s>'.repeat(20_000)}Hi${'</s>'.repeat(20_000)}</Say>`)).toBe(
      '<Say> SSML may nest at most 16 elements deep',
    );
  });

  it('takes 100 verbs, counting those inside <Gather>, and refuses the 101st', () => {
    const gather = `<Gather>${'<Pause/>'.repeat(9)}</Gather>`;
    expect(parse(gather.repeat(10))).toHaveLength(10);
    expect(parse(gather.repeat(10) + '<Hangup/>')).toBe('the document has more than 100 verbs');
  });

  it('takes a <Say> of 4096 characters after trimming the whitespace around it', () => {
    expect(parse(`<Say>\n  ${'a'.repeat(4096)}  \n</Say>`)).toMatchObject([{ text: 'a'.repeat(4096) }]);
  });
});
