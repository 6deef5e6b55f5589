// Dial: the driver places the child call; this leg waits for its end, hears the other side meanwhile (`heard`),
// records the dial's window when asked, and submits DialCallStatus to the action (or goes on without one).
import type { DialVerb } from '../twiml/verbs.js';
import type { MachineEvent } from './types.js';
import { emitRecording, type DialPending, type Outcome, type Run } from './pending.js';
import { appendHeard, appendSegment } from './segments.js';

type Heard = Extract<MachineEvent, { type: 'heard' }>;
type DialEnded = Extract<MachineEvent, { type: 'dialEnded' }>;

export function startDial(run: Run, verb: DialVerb, t: number): Outcome {
  const id = run.ctx.newCallSid();
  run.effects.push({
    type: 'dial',
    id,
    number: verb.number,
    callerId: verb.callerId,
    timeoutS: verb.timeout,
    timeLimitS: verb.timeLimit,
    record: verb.record,
  });
  const sid = verb.record === 'do-not-record' ? null : run.ctx.newRecordingSid();
  const pending: DialPending = { kind: 'dial', id, startMs: t, sid };
  run.state.pending = pending;
  return 'wait';
}

/** The bridged side's sounds, as this leg hears them. */
export function dialHeard(run: Run, event: Heard, t: number): Outcome {
  appendHeard(run.state.timeline, event.sound, t);
  return 'wait';
}

export function dialEnded(run: Run, verb: DialVerb, event: DialEnded, t: number): Outcome {
  const pending = run.state.pending as DialPending;
  const answered = event.status === 'completed';
  const answerMs = answered ? Math.max(pending.startMs, t - event.durationS * 1000) : t;
  const ringback = { atMs: pending.startMs, ms: answerMs - pending.startMs };
  appendSegment(run.state.timeline, { ...ringback, side: 'platform', sound: { kind: 'ringback' } });
  const params: Record<string, string> = {
    DialCallStatus: event.status,
    DialCallDuration: String(event.durationS),
  };
  if (event.callSid !== null) params.DialCallSid = event.callSid;
  const fromRinging = verb.record.startsWith('record-from-ringing');
  if (pending.sid !== null && (answered || fromRinging)) {
    emitDialRecording(run, verb, pending, fromRinging ? pending.startMs : answerMs, t);
    params.RecordingUrl = run.ctx.recordingUrl(pending.sid);
    params.RecordingSid = pending.sid;
  }
  return verb.action === null ? 'next' : { url: verb.action, method: verb.method, params };
}

/**
 * A hangup or a redirect ends the dial at `t`: its recording (if any) holds what was heard until then, and its child
 * leg is hung up (its later end is ignored).
 */
export function closeDial(run: Run, verb: DialVerb, pending: DialPending, t: number): void {
  if (pending.sid !== null) emitDialRecording(run, verb, pending, pending.startMs, t);
  run.effects.push({ type: 'hangupDial', id: pending.id });
}

function emitDialRecording(run: Run, verb: DialVerb, pending: DialPending, startMs: number, endMs: number): void {
  emitRecording(run, {
    sid: pending.sid!,
    source: 'dial_verb',
    channels: verb.record.endsWith('-dual') ? 2 : 1,
    startMs,
    endMs,
    statusCallback: null,
  });
}
