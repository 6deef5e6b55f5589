// The call machine's Gather: prompts, barge-in, each way it ends, where its result goes, and each party.
import { describe, expect, it } from 'vitest';
import { speechMs } from '../../server/calls/audio/durations.js';
import { advance, initialState } from '../../server/calls/machine/run.js';
import { drive, gather, hangup, inline, pause, say, testContext } from './machine-driver.js';

const PROMPT = 'Please enter your account number followed by pound';
const ACTION = 'https://app.example/gathered';
const presser = (digits: string) => ({ kind: 'presser', digits }) as const;

describe('the call machine: Gather', () => {
  it('stops its prompt at the first digit pressed (barge-in) and submits the digits before finishOnKey', () => {
    const run = drive({
      input: { instructions: inline(gather({ action: ACTION }, say(PROMPT), say('never'))), party: presser('1234#') },
      documents: { [ACTION]: [hangup()] },
    });
    // The presser starts one second in; each digit is taken in once its tone and gap (200 ms) are over.
    expect(run.timeline).toEqual([
      { atMs: 0, ms: 1200, side: 'platform', sound: { kind: 'speech', text: PROMPT } },
      ...[...'1234#'].map((digit, i) => ({
        atMs: 1000 + 200 * i,
        ms: 200,
        side: 'party',
        sound: { kind: 'dtmf', digits: digit },
      })),
    ]);
    expect(run.of('fetch')).toEqual([
      { type: 'fetch', id: 'fetch-1', url: ACTION, method: 'POST', params: { Digits: '1234' }, atMs: 2000 },
    ]);
    expect(run.end().atMs).toBe(2000);
  });

  it('ends when numDigits digits were pressed', () => {
    const run = drive({
      input: { instructions: inline(gather({ action: ACTION, numDigits: 2 })), party: presser('1234') },
      documents: { [ACTION]: [] },
    });
    expect(run.of('fetch')).toMatchObject([{ params: { Digits: '12' }, atMs: 1400 }]);
  });

  it('waits timeout seconds after the last digit (the timer restarts after each one), then submits', () => {
    const run = drive({
      input: { instructions: inline(gather({ action: ACTION, finishOnKey: '', timeout: 3 })), party: presser('12') },
      documents: { [ACTION]: [] },
    });
    expect(run.of('fetch')).toMatchObject([{ params: { Digits: '12' }, atMs: 1400 + 3000 }]);
  });

  it('plays every prompt and loop, waits timeout seconds, and without input falls through to the next verb', () => {
    const run = drive({
      input: { instructions: inline(gather({ action: ACTION }, say('Hi', 2), pause(1)), say('Bye')) },
    });
    expect(run.timeline.map((s) => [s.atMs, s.ms, s.sound.kind])).toEqual([
      [0, 800, 'speech'],
      [800, 1000, 'silence'],
      [1800 + 5000, 400, 'speech'],
    ]);
    expect(run.of('fetch')).toEqual([]);
  });

  it('keeps the path of the prompt playing (gather, child) and its loop in the state', () => {
    const ctx = testContext();
    const input = { instructions: inline(say('Hello'), gather({}, pause(1), say('Hi', 3))), url: null };
    let { state } = advance(
      initialState({ ...input, method: 'POST', party: { kind: 'listener' }, recordCall: null }),
      { type: 'start' },
      0,
      ctx,
    );
    expect([state.at, state.played]).toEqual([[0], 0]);
    const path: [number[], number][] = [];
    while (state.wakeAtMs !== null && state.wakeAtMs <= speechMs('Hello') + 1000 + 800) {
      state = advance(state, { type: 'timer' }, state.wakeAtMs, ctx).state;
      path.push([state.at, state.played]);
    }
    expect(path).toEqual([
      [[1, 0], 0],
      [[1, 1], 0],
      [[1, 1], 1],
      [[1, 1], 2],
    ]);
  });

  it('submits an empty result with actionOnEmptyResult', () => {
    const run = drive({
      input: { instructions: inline(gather({ action: ACTION, actionOnEmptyResult: true, timeout: 2 })) },
      documents: { [ACTION]: [] },
    });
    expect(run.of('fetch')).toEqual([
      { type: 'fetch', id: 'fetch-1', url: ACTION, method: 'POST', params: { Digits: '' }, atMs: 2000 },
    ]);
  });

  it('without action, submits to the URL of its own document, or goes on to the next verb when inline', () => {
    const menu = 'https://app.example/menu';
    const fetched = drive({
      input: { url: menu },
      documents: { [menu]: [gather({ method: 'GET' })] },
    });
    expect(fetched.of('fetch').map((f) => [f.url, f.method, f.params])).toEqual([[menu, 'POST', {}]]);
    // The presser presses again on every run of the document: the hangup stops that loop.
    const withDigits = drive({
      input: { url: menu, party: presser('5#') },
      documents: { [menu]: [gather({ method: 'GET' })] },
      events: [{ atMs: 2000, event: { type: 'hangup' } }],
    });
    expect(withDigits.of('fetch').map((f) => [f.url, f.method, f.params, f.atMs])).toEqual([
      [menu, 'POST', {}, 0],
      [menu, 'GET', { Digits: '5' }, 1400],
    ]);
    const inlined = drive({ input: { instructions: inline(gather({}), say('Bye')), party: presser('5#') } });
    expect(inlined.of('fetch')).toEqual([]);
    expect(inlined.of('played')).toEqual([{ type: 'played', sound: { kind: 'speech', text: 'Bye' }, atMs: 1400 }]);
  });

  it('ends with the speaker’s phrase once heard, with SpeechResult and Confidence 0.9', () => {
    const phrase = 'I need help';
    const run = drive({
      input: {
        instructions: inline(gather({ input: ['speech'], action: ACTION }, say(PROMPT))),
        party: { kind: 'speaker', phrase },
      },
      documents: { [ACTION]: [] },
    });
    expect(run.timeline).toEqual([
      { atMs: 0, ms: 1000, side: 'platform', sound: { kind: 'speech', text: PROMPT } },
      { atMs: 1000, ms: speechMs(phrase), side: 'party', sound: { kind: 'speech', text: phrase } },
    ]);
    expect(run.of('fetch')).toEqual([
      {
        type: 'fetch',
        id: 'fetch-1',
        url: ACTION,
        method: 'POST',
        params: { SpeechResult: phrase, Confidence: '0.9' },
        atMs: 1000 + speechMs(phrase),
      },
    ]);
  });

  it('hears nothing from a party whose input it does not listen for, nor from a listener or a voicemail', () => {
    const parties = [{ kind: 'speaker', phrase: 'Hello' }, { kind: 'listener' }, { kind: 'voicemail' }] as const;
    for (const party of parties) {
      const run = drive({ input: { instructions: inline(gather({ action: ACTION, timeout: 2 })), party } });
      expect(run.of('fetch')).toEqual([]);
      expect(run.end().atMs).toBe(2000);
    }
    const dtmfToSpeech = drive({
      input: { instructions: inline(gather({ input: ['speech'], action: ACTION, timeout: 2 })), party: presser('1#') },
    });
    expect(dtmfToSpeech.state.timeline).toEqual([]);
    expect(dtmfToSpeech.end().atMs).toBe(2000);
  });

  it('takes a peer’s input as heard: digits barge in at once, speech with its own confidence', () => {
    const peer = { kind: 'peer', callSid: 'CApeer' } as const;
    const digits = drive({
      input: { instructions: inline(gather({ action: ACTION, numDigits: 2 }, say(PROMPT))), party: peer },
      documents: { [ACTION]: [] },
      events: [{ atMs: 500, event: { type: 'heard', sound: { kind: 'dtmf', digits: '78' } } }],
    });
    expect(digits.timeline[0]).toMatchObject({ atMs: 0, ms: 500, side: 'platform' });
    expect(digits.of('fetch')).toMatchObject([{ params: { Digits: '78' }, atMs: 500 }]);
    const speech = drive({
      input: { instructions: inline(gather({ input: ['dtmf', 'speech'], action: ACTION }, say(PROMPT))), party: peer },
      documents: { [ACTION]: [] },
      events: [{ atMs: 300, event: { type: 'heard', sound: { kind: 'speech', text: 'Sales' }, confidence: 0.75 } }],
    });
    expect(speech.timeline[0]).toMatchObject({ atMs: 0, ms: 300, side: 'platform' });
    expect(speech.of('fetch')).toMatchObject([
      { params: { SpeechResult: 'Sales', Confidence: '0.75' }, atMs: 300 + speechMs('Sales') },
    ]);
  });

  it('stops on hangup while it waits for input, and fetches nothing', () => {
    const run = drive({
      input: { instructions: inline(gather({ action: ACTION }, say('Hi'))) },
      events: [{ atMs: 3000, event: { type: 'hangup' } }],
    });
    expect(run.of('fetch')).toEqual([]);
    expect(run.end()).toMatchObject({ status: 'completed', atMs: 3000 });
  });
});
