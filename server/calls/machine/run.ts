// STAND-IN: replaced by part C at merge. Knows only <Say>, <Dial> and <Hangup> (and the whole-call recording).
import { speechMs } from '../audio/durations.js';
import type { InitialInput, MachineContext, MachineEffect, MachineEvent, MachineState, Step } from './types.js';

export function initialState(input: InitialInput): MachineState {
  return {
    instructions: input.instructions ?? { verbs: [], url: input.url },
    at: [0],
    played: 0,
    documents: 0,
    party: input.party,
    nowMs: 0,
    wakeAtMs: null,
    pending: input.instructions ? null : { fetch: input.url, method: input.method },
    timeline: [],
    callRecording: input.recordCall ? { sid: '', startMs: 0, channels: input.recordCall.channels } : null,
  };
}

export function advance(state: MachineState, event: MachineEvent, nowMs: number, ctx: MachineContext): Step {
  const s: MachineState = { ...state, nowMs, wakeAtMs: null, timeline: [...state.timeline] };
  const effects: MachineEffect[] = [];
  if (event.type === 'start' && s.callRecording) s.callRecording = { ...s.callRecording, sid: ctx.newRecordingSid() };
  const end = (status: 'completed' | 'failed', errorCode: string | null = null, errorMessage: string | null = null) => {
    const rec = s.callRecording;
    if (rec)
      effects.push({
        type: 'recorded',
        segments: s.timeline,
        recording: { ...rec, source: 'outbound_api', endMs: nowMs, statusCallback: null },
      });
    effects.push({ type: 'end', status, errorCode, errorMessage });
    return { state: s, effects };
  };
  const pending = s.pending as { fetch: string; method: 'GET' | 'POST' } | null;
  if (event.type === 'hangup') return end('completed');
  if (event.type === 'fetchFailed') return end('failed', event.errorCode, event.errorMessage);
  if (event.type === 'start' && pending) {
    effects.push({ type: 'fetch', url: pending.fetch, method: pending.method, params: {} });
    return { state: s, effects };
  }
  if (event.type === 'redirect' && !event.instructions) {
    effects.push({ type: 'fetch', url: event.url!, method: event.method, params: {} });
    return { state: s, effects };
  }
  if (event.type === 'redirect') Object.assign(s, { instructions: event.instructions, at: [0], pending: null });
  else if (event.type === 'fetched') Object.assign(s, { instructions: event.instructions, at: [0], pending: null });
  else if (event.type === 'timer' || event.type === 'dialEnded') s.at = [s.at[0] + 1];
  else if (event.type !== 'start') return { state: { ...s, wakeAtMs: state.wakeAtMs }, effects };
  const verb = s.instructions.verbs[s.at[0]];
  if (!verb || verb.verb === 'Hangup') return end('completed');
  if (verb.verb === 'Dial') {
    const { number, callerId, timeout: timeoutS, timeLimit: timeLimitS, record } = verb;
    effects.push({ type: 'dial', number, callerId, timeoutS, timeLimitS, record });
    return { state: s, effects };
  }
  if (verb.verb !== 'Say') return end('failed', 'invalid_instructions', `the stand-in machine cannot run ${verb.verb}`);
  const ms = speechMs(verb.text) * verb.loop;
  s.timeline.push({ atMs: nowMs, ms, side: 'platform', sound: { kind: 'speech', text: verb.text } });
  s.wakeAtMs = nowMs + ms;
  return { state: s, effects };
}
