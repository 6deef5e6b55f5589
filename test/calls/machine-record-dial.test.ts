// The call machine's Record and Dial: what each party does, each way a recording ends, the recordings they emit
// and the parameters of their actions.
import { describe, expect, it } from 'vitest';
import { BEEP_MS, speechMs } from '../../server/calls/audio/durations.js';
import { LISTENER_MESSAGE, VOICEMAIL_GREETING } from '../../server/calls/machine/party.js';
import { advance, initialState } from '../../server/calls/machine/run.js';
import type { MachineEffect } from '../../server/calls/machine/types.js';
import type { Instructions } from '../../server/calls/twiml/verbs.js';
import { dial, drive, hangup, inline, record, say, testContext } from './machine-driver.js';

const ACTION = 'https://app.example/done';
const SID1 = 'RE00000000000000000000000000000001';
const MESSAGE_MS = speechMs(LISTENER_MESSAGE);
const peer = { kind: 'peer', callSid: 'CApeer' } as const;

describe('the call machine: Record', () => {
  it('beeps, hears the listener’s message, ends after timeout seconds of silence and submits the recording', () => {
    const callback = 'https://app.example/recording-status';
    const run = drive({
      input: { instructions: inline(record({ action: ACTION, recordingStatusCallback: callback })) },
      documents: { [ACTION]: [] },
    });
    const endMs = BEEP_MS + MESSAGE_MS + 5000;
    const message = { atMs: BEEP_MS, ms: MESSAGE_MS, side: 'party', sound: { kind: 'speech', text: LISTENER_MESSAGE } };
    expect(run.timeline).toEqual([{ atMs: 0, ms: BEEP_MS, side: 'platform', sound: { kind: 'beep' } }, message]);
    expect(run.of('recorded')).toEqual([
      {
        type: 'recorded',
        recording: {
          sid: SID1,
          source: 'record_verb',
          channels: 1,
          startMs: BEEP_MS,
          endMs,
          statusCallback: callback,
        },
        segments: [message],
        atMs: endMs,
      },
    ]);
    expect(run.of('fetch')).toEqual([
      {
        type: 'fetch',
        id: 'fetch-1',
        url: ACTION,
        method: 'POST',
        params: {
          RecordingUrl: `https://media.example/${SID1}.wav`,
          RecordingSid: SID1,
          RecordingDuration: String(Math.ceil((endMs - BEEP_MS) / 1000)),
        },
        atMs: endMs,
      },
    ]);
  });

  it('ends at a finishOnKey digit, with it as Digits, recording the other digits pressed before it', () => {
    const run = drive({
      input: {
        instructions: inline(record({ action: ACTION, finishOnKey: '#' })),
        party: { kind: 'presser', digits: '12#' },
      },
      documents: { [ACTION]: [] },
    });
    // The presser starts one second after the window opens; each digit is taken in 200 ms after its tone starts.
    const opened = BEEP_MS;
    expect(run.of('recorded')[0].segments).toEqual([
      { atMs: opened + 1000, ms: 200, side: 'party', sound: { kind: 'dtmf', digits: '1' } },
      { atMs: opened + 1200, ms: 200, side: 'party', sound: { kind: 'dtmf', digits: '2' } },
    ]);
    expect(run.of('fetch')).toMatchObject([{ params: { Digits: '#', RecordingDuration: '2' }, atMs: opened + 1600 }]);
  });

  it('ends at the first digit with the default finishOnKey (any digit, * or #)', () => {
    const run = drive({
      input: {
        instructions: inline(record({ action: ACTION, playBeep: false })),
        party: { kind: 'presser', digits: '5' },
      },
      documents: { [ACTION]: [] },
    });
    expect(run.of('fetch')).toMatchObject([{ params: { Digits: '5' }, atMs: 1200 }]);
  });

  it('ends at maxLength, and with timeout 0 never on silence', () => {
    const run = drive({
      input: {
        instructions: inline(record({ action: ACTION, playBeep: false, maxLength: 60, timeout: 0 })),
        party: { kind: 'speaker', phrase: 'Hi there' },
      },
      documents: { [ACTION]: [] },
    });
    expect(run.of('recorded')[0].segments).toEqual([
      { atMs: 0, ms: speechMs('Hi there'), side: 'party', sound: { kind: 'speech', text: 'Hi there' } },
    ]);
    expect(run.of('fetch')).toMatchObject([{ params: { RecordingDuration: '60' }, atMs: 60_000 }]);
    expect(run.of('fetch')[0].params).not.toHaveProperty('Digits');
    const cut = drive({
      input: { instructions: inline(record({ playBeep: false, maxLength: 1 })), party: { kind: 'listener' } },
    });
    expect(cut.of('recorded')[0].segments).toEqual([
      { atMs: 0, ms: 1000, side: 'party', sound: { kind: 'speech', text: LISTENER_MESSAGE } },
    ]);
  });

  it('records a peer’s sounds as heard, until a finishOnKey digit from it (the digits before it recorded)', () => {
    const run = drive({
      input: { instructions: inline(record({ action: ACTION, playBeep: false, finishOnKey: '#' })), party: peer },
      documents: { [ACTION]: [] },
      events: [
        { atMs: 1000, event: { type: 'heard', sound: { kind: 'dtmf', digits: '1' } } },
        { atMs: 1500, event: { type: 'heard', sound: { kind: 'speech', text: 'Hello' } } },
        { atMs: 2500, event: { type: 'heard', sound: { kind: 'dtmf', digits: '9#4' } } },
      ],
    });
    expect(run.of('recorded')[0].segments.map((s) => [s.atMs, s.sound])).toEqual([
      [1000, { kind: 'dtmf', digits: '1' }],
      [1500, { kind: 'speech', text: 'Hello' }],
      [2500, { kind: 'dtmf', digits: '9' }],
    ]);
    expect(run.of('fetch')).toMatchObject([{ params: { Digits: '#', RecordingDuration: '3' }, atMs: 2500 }]);
  });

  it('waits for a voicemail’s greeting and beep to end before counting silence', () => {
    const run = drive({ input: { instructions: inline(record({ action: ACTION })), party: { kind: 'voicemail' } } });
    const greetingEndMs = speechMs(VOICEMAIL_GREETING) + BEEP_MS;
    expect(run.of('recorded')[0].recording).toMatchObject({ startMs: BEEP_MS, endMs: greetingEndMs + 5000 });
  });

  it('without action, submits to its document’s URL, or goes on to the next verb when inline', () => {
    const url = 'https://app.example/voicemail';
    const fetched = drive({
      input: { url, party: { kind: 'presser', digits: '#' } },
      documents: { [url]: [record({ method: 'GET' })] },
      events: [{ atMs: 2000, event: { type: 'hangup' } }],
    });
    expect(fetched.of('fetch').map((f) => [f.url, f.method, f.params.Digits])).toEqual([
      [url, 'POST', undefined],
      [url, 'GET', '#'],
    ]);
    const inlined = drive({ input: { instructions: inline(record({ maxLength: 1 }), say('Bye')) } });
    expect(inlined.of('fetch')).toEqual([]);
    expect(inlined.of('played')).toMatchObject([{ sound: { text: 'Bye' }, atMs: BEEP_MS + 1000 }]);
  });

  it('on hangup, emits the recording so far (and the whole-call one) before end, and fetches no action', () => {
    const run = drive({
      input: { instructions: inline(record({ action: ACTION })), recordCall: { channels: 1 } },
      events: [{ atMs: 2000, event: { type: 'hangup' } }],
    });
    expect(run.emitted.map((e) => [e.atMs, e.effect.type])).toEqual([
      [2000, 'recorded'],
      [2000, 'recorded'],
      [2000, 'end'],
    ]);
    const [verb, whole] = run.of('recorded');
    expect(verb.recording).toMatchObject({ source: 'record_verb', startMs: BEEP_MS, endMs: 2000 });
    expect(verb.segments).toEqual([
      { atMs: BEEP_MS, ms: 2000 - BEEP_MS, side: 'party', sound: { kind: 'speech', text: LISTENER_MESSAGE } },
    ]);
    expect(whole.recording).toMatchObject({ source: 'outbound_api', startMs: 0, endMs: 2000 });
  });

  it('makes no recording when the call hangs up during the beep (only the whole-call one)', () => {
    const run = drive({
      input: { instructions: inline(record({ action: ACTION })), recordCall: { channels: 1 } },
      events: [{ atMs: BEEP_MS / 2, event: { type: 'hangup' } }],
    });
    expect(run.emitted.map((e) => e.effect.type)).toEqual(['recorded', 'end']);
    expect(run.of('recorded')[0].recording).toMatchObject({ source: 'outbound_api', startMs: 0, endMs: BEEP_MS / 2 });
  });
});

describe('the call machine: Dial', () => {
  const number = '+15550001111';

  it('asks the driver to dial, records from the answer on two channels, and submits the outcome', () => {
    const run = drive({
      input: {
        instructions: inline(
          dial(number, { action: ACTION, callerId: '+15550002222', record: 'record-from-answer-dual' }),
        ),
      },
      dials: { [number]: { afterMs: 10_000, status: 'completed', durationS: 7 } },
      documents: { [ACTION]: [] },
      events: [{ atMs: 4000, event: { type: 'heard', sound: { kind: 'speech', text: 'Hello' } } }],
    });
    expect(run.of('dial')).toEqual([
      {
        type: 'dial',
        id: 'CA00000000000000000000000000000001',
        number,
        callerId: '+15550002222',
        timeoutS: 30,
        timeLimitS: 14400,
        record: 'record-from-answer-dual',
        atMs: 0,
      },
    ]);
    expect(run.of('recorded')).toEqual([
      {
        type: 'recorded',
        recording: { sid: SID1, source: 'dial_verb', channels: 2, startMs: 3000, endMs: 10_000, statusCallback: null },
        segments: [{ atMs: 4000, ms: speechMs('Hello'), side: 'party', sound: { kind: 'speech', text: 'Hello' } }],
        atMs: 10_000,
      },
    ]);
    // The ringback is known once the dial ends, and still comes first: the timeline is in order of start.
    expect(run.timeline).toEqual([
      { atMs: 0, ms: 3000, side: 'platform', sound: { kind: 'ringback' } },
      { atMs: 4000, ms: speechMs('Hello'), side: 'party', sound: { kind: 'speech', text: 'Hello' } },
    ]);
    expect(run.of('fetch')).toEqual([
      {
        type: 'fetch',
        id: 'fetch-1',
        url: ACTION,
        method: 'POST',
        params: {
          DialCallStatus: 'completed',
          DialCallSid: 'CA00000000000000000000000000000001',
          DialCallDuration: '7',
          RecordingUrl: `https://media.example/${SID1}.wav`,
          RecordingSid: SID1,
        },
        atMs: 10_000,
      },
    ]);
  });

  it('without action goes on to the next verb; a dial not answered records only from ringing', () => {
    const busy = drive({
      input: { instructions: inline(dial(number, { record: 'record-from-answer' }), say('Bye')) },
      dials: { [number]: { afterMs: 2000, status: 'busy', durationS: 0 } },
    });
    expect(busy.of('recorded')).toEqual([]);
    expect(busy.of('fetch')).toEqual([]);
    expect(busy.of('played')).toMatchObject([{ sound: { text: 'Bye' }, atMs: 2000 }]);
    const ringing = drive({
      input: { instructions: inline(dial(number, { action: ACTION, record: 'record-from-ringing' })) },
      dials: { [number]: { afterMs: 30_000, status: 'no-answer', durationS: 0 } },
      documents: { [ACTION]: [] },
    });
    expect(ringing.of('recorded')[0].recording).toMatchObject({ channels: 1, startMs: 0, endMs: 30_000 });
    expect(ringing.of('fetch')[0].params).toMatchObject({ DialCallStatus: 'no-answer', RecordingSid: SID1 });
  });

  it('on hangup while dialing, emits its recording before end and ignores the dial’s later end', () => {
    const run = drive({
      input: { instructions: inline(dial(number, { action: ACTION, record: 'record-from-ringing' })) },
      dials: { [number]: { afterMs: 9000, status: 'completed', durationS: 5 } },
      events: [{ atMs: 6000, event: { type: 'hangup' } }],
    });
    expect(run.emitted.map((e) => [e.atMs, e.effect.type])).toEqual([
      [0, 'dial'],
      [6000, 'recorded'],
      [6000, 'hangupDial'],
      [6000, 'end'],
    ]);
    expect(run.of('recorded')[0].recording).toMatchObject({ source: 'dial_verb', startMs: 0, endMs: 6000 });
  });
});

describe('the call machine: late answers to requests a live redirect superseded', () => {
  const ctx = testContext();
  const number = '+15550001111';
  const start = (instructions: Instructions | null, url: string | null = null) =>
    advance(
      initialState({ instructions, url, method: 'POST', party: { kind: 'listener' }, recordCall: null }),
      { type: 'start' },
      0,
      ctx,
    );
  const liveRedirect = {
    type: 'redirect',
    instructions: null,
    url: 'https://app.example/new',
    method: 'POST',
  } as const;

  it('ignores the superseded fetch’s answer and takes the one it waits for', () => {
    const first = start(null, 'https://app.example/old');
    const redirected = advance(first.state, liveRedirect, 100, ctx);
    const [oldFetch, newFetch] = [first.effects[0], redirected.effects[0]] as Extract<
      MachineEffect,
      { type: 'fetch' }
    >[];
    expect(newFetch.id).not.toBe(oldFetch.id);
    const late = advance(
      redirected.state,
      { type: 'fetched', id: oldFetch.id, instructions: inline(hangup()) },
      200,
      ctx,
    );
    expect(late).toEqual({ state: redirected.state, effects: [] });
    const lateFailure = { type: 'fetchFailed', id: oldFetch.id, errorCode: 'x', errorMessage: 'x' } as const;
    expect(advance(redirected.state, lateFailure, 200, ctx)).toEqual({ state: redirected.state, effects: [] });
    const answered = advance(
      redirected.state,
      { type: 'fetched', id: newFetch.id, instructions: inline(hangup()) },
      300,
      ctx,
    );
    expect(answered.effects.map((e) => e.type)).toEqual(['end']);
  });

  it('hangs up the stopped Dial’s child and ignores its end, taking the new Dial’s', () => {
    const first = start(inline(dial(number)));
    const oldDial = first.effects[0] as Extract<MachineEffect, { type: 'dial' }>;
    const redirected = advance(first.state, liveRedirect, 1000, ctx);
    expect(redirected.effects[0]).toEqual({ type: 'hangupDial', id: oldDial.id });
    const fetch = redirected.effects[1] as Extract<MachineEffect, { type: 'fetch' }>;
    const second = advance(
      redirected.state,
      { type: 'fetched', id: fetch.id, instructions: inline(dial(number)) },
      1100,
      ctx,
    );
    const newDial = second.effects[0] as Extract<MachineEffect, { type: 'dial' }>;
    const ended = (id: string) => ({ type: 'dialEnded', id, status: 'completed', callSid: id, durationS: 1 }) as const;
    expect(advance(second.state, ended(oldDial.id), 1200, ctx)).toEqual({ state: second.state, effects: [] });
    expect(advance(second.state, ended(newDial.id), 1300, ctx).effects.map((e) => e.type)).toEqual(['end']);
  });
});
