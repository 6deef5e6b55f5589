// The call machine (server/calls/machine): starting, the sound verbs, the verbs that end or move a call, live
// changes and hangups mid-verb, the document bound, and events that do not apply. Gather: machine-gather.test.ts;
// Record and Dial: machine-record-dial.test.ts.
import { describe, expect, it } from 'vitest';
import { BEEP_MS, PLAY_URL_MS, dtmfMs, speechMs } from '../../server/calls/audio/durations.js';
import { advance, initialState } from '../../server/calls/machine/run.js';
import type { MachineEffect } from '../../server/calls/machine/types.js';
import { VOICEMAIL_GREETING } from '../../server/calls/machine/party.js';
import {
  dial,
  drive,
  hangup,
  inline,
  pause,
  playDigits,
  playUrl,
  redirect,
  reject,
  record,
  say,
  testContext,
} from './machine-driver.js';

const HELLO = speechMs('Hello');

describe('the call machine: starting and the sound verbs', () => {
  it('runs inline instructions at start and ends completed at the end of the document', () => {
    const run = drive({ input: { instructions: inline(say('Hello')) } });
    expect(run.of('fetch')).toEqual([]);
    expect(run.timeline).toEqual([{ atMs: 0, ms: HELLO, side: 'platform', sound: { kind: 'speech', text: 'Hello' } }]);
    expect(run.end()).toEqual({ type: 'end', status: 'completed', errorCode: null, errorMessage: null, atMs: HELLO });
  });

  it('fetches the instructions from url with method and no extra parameters, then runs them', () => {
    const run = drive({
      input: { url: 'https://app.example/voice', method: 'GET' },
      documents: { 'https://app.example/voice': [say('Hello')] },
    });
    expect(run.of('fetch')).toEqual([
      { type: 'fetch', id: 'fetch-1', url: 'https://app.example/voice', method: 'GET', params: {}, atMs: 0 },
    ]);
    expect(run.state.documents).toBe(1);
    expect(run.end()).toMatchObject({ status: 'completed', atMs: HELLO });
  });

  it('plays Say loop times as one segment (its text kept once), and emits each as played speech for a peer', () => {
    const run = drive({ input: { instructions: inline(say('Hello', 3)) } });
    expect(run.timeline).toEqual([
      { atMs: 0, ms: 3 * HELLO, side: 'platform', sound: { kind: 'speech', text: 'Hello' } },
    ]);
    expect(run.of('played').map((p) => [p.atMs, p.sound])).toEqual(
      [0, HELLO, 2 * HELLO].map((at) => [at, { kind: 'speech', text: 'Hello' }]),
    );
    expect(run.end().atMs).toBe(3 * HELLO);
  });

  it('plays a Play url as a 440 Hz tone of PLAY_URL_MS per loop, and Play digits as dtmf a peer hears', () => {
    const run = drive({ input: { instructions: inline(playUrl('https://a.example/x.mp3', 2), playDigits('12w3')) } });
    const dtmfAt = 2 * PLAY_URL_MS;
    expect(run.timeline).toEqual([
      { atMs: 0, ms: 2 * PLAY_URL_MS, side: 'platform', sound: { kind: 'tone', hz: 440 } },
      { atMs: dtmfAt, ms: dtmfMs('12w3'), side: 'platform', sound: { kind: 'dtmf', digits: '12w3' } },
    ]);
    expect(run.of('played')).toEqual([{ type: 'played', sound: { kind: 'dtmf', digits: '12w3' }, atMs: dtmfAt }]);
    expect(run.end().atMs).toBe(dtmfAt + dtmfMs('12w3'));
  });

  it('plays Pause as silence, merging adjacent silences into one segment', () => {
    const run = drive({ input: { instructions: inline(pause(2), pause(3)) } });
    expect(run.timeline).toEqual([{ atMs: 0, ms: 5000, side: 'platform', sound: { kind: 'silence' } }]);
    expect(run.end().atMs).toBe(5000);
  });

  it('keeps no segment that has ended while no recording is open, so a long call’s state stays small', () => {
    const ctx = testContext();
    const text = 'a long announcement '.repeat(100);
    const input = { instructions: inline(say(text, 1000)), url: null, method: 'POST' as const, recordCall: null };
    const started = advance(initialState({ ...input, party: { kind: 'listener' } }), { type: 'start' }, 0, ctx);
    const { state } = advance(started.state, { type: 'timer' }, 500 * speechMs(text) + 1, ctx);
    expect(state.timeline).toEqual([
      { atMs: 0, ms: 501 * speechMs(text), side: 'platform', sound: { kind: 'speech', text } },
    ]);
    const paused = drive({ input: { instructions: inline(say('Hello'), pause(60), say('Bye')) } });
    expect(paused.state.timeline).toEqual([]);
    expect(paused.timeline.map((s) => s.atMs)).toEqual([0, HELLO, HELLO + 60_000]);
  });

  it('keeps the timeline bounded, dropping the oldest segments, as a last resort', () => {
    const ctx = testContext();
    const verbs = Array.from({ length: 5 }, (_, i) => [playDigits(String(i), 1000), pause(1)]).flat();
    const input = {
      instructions: inline(...verbs),
      url: null,
      method: 'POST' as const,
      recordCall: { channels: 1 as const },
    };
    const started = advance(initialState({ ...input, party: { kind: 'listener' } }), { type: 'start' }, 0, ctx);
    // One late timer plays the whole document (5,005 segments) in one step (the whole-call recording needs them
    // all), up to its last Pause: the first 1,005 are dropped.
    const { state } = advance(started.state, { type: 'timer' }, 5 * (1000 * dtmfMs('0') + 1000) - 500, ctx);
    expect(state.timeline).toHaveLength(4000);
    expect(state.timeline.at(-1)).toMatchObject({ sound: { kind: 'silence' } });
    expect(state.timeline[0]).toMatchObject({ atMs: 1004 * dtmfMs('0') + 1000, sound: { kind: 'dtmf', digits: '1' } });
  });

  it('plays the voicemail greeting and beep as party sounds from the answer, beside what the leg plays', () => {
    const run = drive({ input: { instructions: inline(say('Hello')), party: { kind: 'voicemail' } } });
    const greetingMs = speechMs(VOICEMAIL_GREETING);
    // The leg hangs up after its Say: the greeting is cut there.
    expect(run.timeline).toEqual([
      { atMs: 0, ms: HELLO, side: 'party', sound: { kind: 'speech', text: VOICEMAIL_GREETING } },
      { atMs: 0, ms: HELLO, side: 'platform', sound: { kind: 'speech', text: 'Hello' } },
    ]);
    const longer = drive({ input: { instructions: inline(pause(10)), party: { kind: 'voicemail' } } });
    expect(longer.timeline.filter((s) => s.side === 'party')).toEqual([
      { atMs: 0, ms: greetingMs, side: 'party', sound: { kind: 'speech', text: VOICEMAIL_GREETING } },
      { atMs: greetingMs, ms: BEEP_MS, side: 'party', sound: { kind: 'beep' } },
    ]);
  });
});

describe('the call machine: verbs that move or end the call', () => {
  it('fetches a Redirect url with its method, and runs the document it answers', () => {
    const run = drive({
      input: { instructions: inline(redirect('https://app.example/next', 'GET'), say('never')) },
      documents: { 'https://app.example/next': [say('Hello')] },
    });
    expect(run.of('fetch')).toEqual([
      { type: 'fetch', id: 'fetch-1', url: 'https://app.example/next', method: 'GET', params: {}, atMs: 0 },
    ]);
    expect(run.timeline.map((s) => s.sound)).toEqual([{ kind: 'speech', text: 'Hello' }]);
    expect(run.end()).toMatchObject({ status: 'completed', atMs: HELLO });
  });

  it('ends completed on Hangup, running nothing after it', () => {
    const run = drive({ input: { instructions: inline(say('Hello'), hangup(), say('never')) } });
    expect(run.of('played')).toHaveLength(1);
    expect(run.end()).toEqual({ type: 'end', status: 'completed', errorCode: null, errorMessage: null, atMs: HELLO });
  });

  it('ends busy on Reject reason busy, and failed with rejected on Reject reason rejected', () => {
    expect(drive({ input: { instructions: inline(reject('busy')) } }).end()).toEqual({
      type: 'end',
      status: 'busy',
      errorCode: null,
      errorMessage: null,
      atMs: 0,
    });
    expect(drive({ input: { instructions: inline(reject('rejected')) } }).end()).toEqual({
      type: 'end',
      status: 'failed',
      errorCode: 'rejected',
      errorMessage: 'The call was rejected by its instructions.',
      atMs: 0,
    });
  });

  it('ends failed with instruction_loop when a call fetches more than 100 documents', () => {
    const url = 'https://app.example/loop';
    const run = drive({ input: { url }, documents: { [url]: [pause(1), redirect(url)] } });
    expect(run.of('fetch')).toHaveLength(100);
    expect(run.end()).toEqual({
      type: 'end',
      status: 'failed',
      errorCode: 'instruction_loop',
      errorMessage: 'More than 100 instruction documents were fetched in this call.',
      atMs: 100_000,
    });
  });

  it.each([
    ['a Record without action (its document fetched again)', [record({ playBeep: false, maxLength: 1 })], {}, 100],
    [
      'a recording Dial whose action is its document',
      [dial('+14155550111', { record: 'record-from-answer', action: 'https://app.example/loop' })],
      { '+14155550111': { afterMs: 2000, status: 'completed' as const, durationS: 2 } },
      100,
    ],
    [
      'a recording Dial to a busy number',
      [dial('+14155550112', { record: 'record-from-answer', action: 'https://app.example/loop' })],
      { '+14155550112': { afterMs: 1000, status: 'busy' as const, durationS: 0 } },
      0,
    ],
  ])('ends %s at the document bound with each recording made once', (_name, verbs, dials, recordings) => {
    const url = 'https://app.example/loop';
    const run = drive({ input: { url }, documents: { [url]: verbs }, dials });
    expect(run.end()).toMatchObject({ status: 'failed', errorCode: 'instruction_loop' });
    const sids = run.of('recorded').map((r) => r.recording.sid);
    expect(new Set(sids).size).toBe(sids.length);
    // One for each verb that recorded something: none for a dial never answered.
    expect(sids).toHaveLength(recordings);
    // No hangup of a dial that had ended already.
    expect(run.of('hangupDial')).toEqual([]);
  });

  it('ends failed with the code and message of a fetch that failed', () => {
    const run = drive({ input: { url: 'https://app.example/missing' } });
    expect(run.end()).toEqual({
      type: 'end',
      status: 'failed',
      errorCode: 'fetch_failed',
      errorMessage: 'No document at https://app.example/missing.',
      atMs: 0,
    });
  });
});

describe('the call machine: live changes and hangups', () => {
  it('on redirect with instructions, stops the Say playing (its segment cut there) and runs them', () => {
    const run = drive({
      input: { instructions: inline(say('A long greeting that goes on'), say('never')) },
      events: [
        { atMs: 500, event: { type: 'redirect', instructions: inline(say('Hello')), url: null, method: 'POST' } },
      ],
    });
    expect(run.timeline).toEqual([
      { atMs: 0, ms: 500, side: 'platform', sound: { kind: 'speech', text: 'A long greeting that goes on' } },
      { atMs: 500, ms: HELLO, side: 'platform', sound: { kind: 'speech', text: 'Hello' } },
    ]);
    expect(run.state.documents).toBe(1);
    expect(run.end().atMs).toBe(500 + HELLO);
  });

  it('on redirect with a url, stops the verb and fetches the url with its method', () => {
    const run = drive({
      input: { instructions: inline(pause(10)) },
      documents: { 'https://app.example/live': [hangup()] },
      events: [
        { atMs: 1500, event: { type: 'redirect', instructions: null, url: 'https://app.example/live', method: 'GET' } },
      ],
    });
    expect(run.of('fetch')).toEqual([
      { type: 'fetch', id: 'fetch-1', url: 'https://app.example/live', method: 'GET', params: {}, atMs: 1500 },
    ]);
    expect(run.timeline).toEqual([{ atMs: 0, ms: 1500, side: 'platform', sound: { kind: 'silence' } }]);
    expect(run.end().atMs).toBe(1500);
  });

  it('on redirect during a Record, emits the recording first, then runs the new instructions', () => {
    const run = drive({
      input: { instructions: inline(record({ action: 'https://app.example/recorded' })) },
      events: [{ atMs: 2000, event: { type: 'redirect', instructions: inline(hangup()), url: null, method: 'POST' } }],
    });
    expect(run.emitted.map((e) => [e.atMs, e.effect.type])).toEqual([
      [2000, 'recorded'],
      [2000, 'end'],
    ]);
    expect(run.of('recorded')[0].recording).toMatchObject({ source: 'record_verb', startMs: BEEP_MS, endMs: 2000 });
    expect(run.of('fetch')).toEqual([]);
  });

  it('on hangup mid-Say, cuts the Say and ends completed at once', () => {
    const run = drive({
      input: { instructions: inline(say('A long greeting that goes on'), say('never')) },
      events: [{ atMs: 700, event: { type: 'hangup' } }],
    });
    expect(run.timeline).toEqual([
      { atMs: 0, ms: 700, side: 'platform', sound: { kind: 'speech', text: 'A long greeting that goes on' } },
    ]);
    expect(run.end()).toMatchObject({ status: 'completed', atMs: 700 });
    expect(run.state.wakeAtMs).toBeNull();
  });

  it('records the whole call from the answer (record: true) and emits it before end, however the call ends', () => {
    const cases = [
      { instructions: inline(say('Hello')), endMs: HELLO },
      { instructions: inline(reject('rejected')), endMs: 0 },
    ];
    for (const { instructions, endMs } of cases) {
      const run = drive({ input: { instructions, recordCall: { channels: 2 } } });
      expect(run.emitted.slice(-2).map((e) => e.effect.type)).toEqual(['recorded', 'end']);
      expect(run.of('recorded')).toEqual([
        {
          type: 'recorded',
          recording: {
            sid: 'RE00000000000000000000000000000001',
            source: 'outbound_api',
            channels: 2,
            startMs: 0,
            endMs,
            statusCallback: null,
          },
          segments: run.timeline,
          atMs: endMs,
        },
      ]);
    }
  });

  it('hears input no verb listens for on the line: the whole-call recording holds it', () => {
    const run = drive({
      input: { instructions: inline(say('Hello'), pause(2), hangup()), recordCall: { channels: 1 } },
      events: [
        { atMs: 10, event: { type: 'heard', sound: { kind: 'dtmf', digits: '1' } } },
        { atMs: HELLO + 500, event: { type: 'heard', sound: { kind: 'speech', text: 'Hi' } } },
      ],
    });
    expect(run.of('recorded')[0].segments.filter((s) => s.side === 'party')).toEqual([
      { atMs: 10, ms: dtmfMs('1'), side: 'party', sound: { kind: 'dtmf', digits: '1' } },
      { atMs: HELLO + 500, ms: speechMs('Hi'), side: 'party', sound: { kind: 'speech', text: 'Hi' } },
    ]);
    expect(run.end().atMs).toBe(HELLO + 2000);
  });

  it('changes nothing and emits nothing for events that do not apply', () => {
    const ctx = testContext();
    const started = advance(
      initialState({
        instructions: inline(say('Hello')),
        url: null,
        method: 'POST',
        party: { kind: 'listener' },
        recordCall: null,
      }),
      { type: 'start' },
      0,
      ctx,
    ).state;
    const early = advance(started, { type: 'timer' }, HELLO - 1, ctx);
    expect(early).toEqual({ state: started, effects: [] });
    const fetched = advance(started, { type: 'fetched', id: 'fetch-1', instructions: inline(hangup()) }, 10, ctx);
    expect(fetched).toEqual({ state: started, effects: [] });
    const ended = advance(started, { type: 'hangup' }, 10, ctx).state;
    for (const event of [{ type: 'timer' }, { type: 'hangup' }, { type: 'start' }] as const) {
      expect(advance(ended, event, 20_000, ctx)).toEqual({ state: ended, effects: [] });
    }
  });

  it('does every timer due by a late event at its own call time', () => {
    const ctx = testContext();
    const state = initialState({
      instructions: inline(say('Hello', 2), hangup()),
      url: null,
      method: 'POST',
      party: { kind: 'listener' },
      recordCall: { channels: 1 },
    });
    const started = advance(state, { type: 'start' }, 0, ctx).state;
    const late = advance(started, { type: 'timer' }, 60_000, ctx);
    expect(late.effects.map((e) => e.type)).toEqual(['played', 'recorded', 'end']);
    const recorded = late.effects[1] as Extract<MachineEffect, { type: 'recorded' }>;
    expect(recorded.recording).toMatchObject({ startMs: 0, endMs: 2 * HELLO });
    expect(recorded.segments).toEqual([
      { atMs: 0, ms: 2 * HELLO, side: 'platform', sound: { kind: 'speech', text: 'Hello' } },
    ]);
  });
});
