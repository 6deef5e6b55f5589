// Record: a beep, then a window that records what the other end does until `timeout` seconds of silence,
// `maxLength`, a finishOnKey digit, or a hangup; then the recording and its action.
import { BEEP_MS, dtmfMs, speechMs } from '../audio/durations.js';
import type { RecordVerb } from '../twiml/verbs.js';
import type { MachineEvent } from './types.js';
import { DIGIT_MS, recordActs } from './party.js';
import {
  actionOrDocument,
  emitRecording,
  wholeSeconds,
  type Outcome,
  type RecordPending,
  type Run,
} from './pending.js';
import { appendSegment, partySoundEndMs } from './segments.js';

type Heard = Extract<MachineEvent, { type: 'heard' }>;

export function startRecord(run: Run, verb: RecordVerb, t: number): Outcome {
  const state = run.state;
  let openMs = t;
  if (verb.playBeep) {
    appendSegment(state.timeline, { atMs: t, ms: BEEP_MS, side: 'platform', sound: { kind: 'beep' } });
    openMs += BEEP_MS;
  }
  const pending: RecordPending = {
    kind: 'record',
    sid: run.ctx.newRecordingSid(),
    openMs,
    // A sound from the other end still going on (a voicemail greeting) is heard first.
    lastSoundEndMs: Math.max(openMs, partySoundEndMs(state.timeline)),
    acts: recordActs(state.party, openMs),
  };
  state.pending = pending;
  return 'wait';
}

export function recordWakeMs(pending: RecordPending, verb: RecordVerb): number {
  return Math.min(pending.acts[0]?.atMs ?? Infinity, endByLimitsMs(pending, verb));
}

/** When silence or maxLength ends the recording, as things stand. */
function endByLimitsMs(pending: RecordPending, verb: RecordVerb): number {
  const silenceEndMs = verb.timeout > 0 ? pending.lastSoundEndMs + verb.timeout * 1000 : Infinity;
  return Math.min(silenceEndMs, pending.openMs + verb.maxLength * 1000);
}

export function recordTimer(run: Run, verb: RecordVerb, t: number): Outcome {
  const pending = run.state.pending as RecordPending;
  while (pending.acts.length > 0 && pending.acts[0].atMs <= t) {
    const { atMs, sound } = pending.acts.shift()!;
    const outcome =
      sound.kind === 'dtmf'
        ? hearDigits(run, verb, pending, sound.digits, atMs - DIGIT_MS, t)
        : hearSpeech(run, pending, sound.text, t);
    if (outcome !== 'wait') return outcome;
  }
  if (endByLimitsMs(pending, verb) <= t) return stop(run, verb, pending, t, {});
  return 'wait';
}

export function recordHeard(run: Run, verb: RecordVerb, event: Heard, t: number): Outcome {
  const pending = run.state.pending as RecordPending;
  const { sound } = event;
  return sound.kind === 'dtmf'
    ? hearDigits(run, verb, pending, sound.digits, t, t)
    : hearSpeech(run, pending, sound.text, t);
}

/** Digits whose tones started at `fromMs`, taken in at `t`: a finishOnKey digit ends the recording there. */
function hearDigits(run: Run, verb: RecordVerb, pending: RecordPending, digits: string, fromMs: number, t: number) {
  const finishAt = [...digits].findIndex((digit) => digit !== 'w' && verb.finishOnKey.includes(digit));
  // The digits before the finishing one are recorded; the finishing one is not (Twilio trims it).
  const recorded = finishAt === -1 ? digits : digits.slice(0, finishAt);
  const ms = dtmfMs(recorded);
  appendSegment(run.state.timeline, { atMs: fromMs, ms, side: 'party', sound: { kind: 'dtmf', digits: recorded } });
  pending.lastSoundEndMs = Math.max(pending.lastSoundEndMs, fromMs + ms);
  // Digits heard at once (a peer's Play) are still sounding: the recording holds them.
  return finishAt === -1 ? 'wait' : stop(run, verb, pending, Math.max(t, fromMs + ms), { Digits: digits[finishAt] });
}

function hearSpeech(run: Run, pending: RecordPending, text: string, t: number): Outcome {
  const ms = speechMs(text);
  appendSegment(run.state.timeline, { atMs: t, ms, side: 'party', sound: { kind: 'speech', text } });
  pending.lastSoundEndMs = Math.max(pending.lastSoundEndMs, t + ms);
  return 'wait';
}

/** Ends the recording at `endMs` and submits it to the action. */
function stop(run: Run, verb: RecordVerb, pending: RecordPending, endMs: number, extra: Record<string, string>) {
  const durationS = closeRecord(run, verb, pending, endMs);
  const params = {
    RecordingUrl: run.ctx.recordingUrl(pending.sid),
    RecordingSid: pending.sid,
    RecordingDuration: String(durationS),
    ...extra,
  };
  return actionOrDocument(verb.action, verb.method, params, run.state.instructions.url);
}

/**
 * Emits the recording of the window up to `t` (a hangup or a redirect ends it too); returns its seconds. A window
 * that never opened (stopped during the beep) makes no recording, as on Twilio.
 */
export function closeRecord(run: Run, verb: RecordVerb, pending: RecordPending, t: number): number {
  const startMs = pending.openMs;
  if (t <= startMs) return 0;
  emitRecording(run, {
    sid: pending.sid,
    source: 'record_verb',
    channels: 1,
    startMs,
    endMs: t,
    statusCallback: verb.recordingStatusCallback,
  });
  return wholeSeconds(t - startMs);
}
