// Gather: plays its prompts while listening; input stops them at once (barge-in), then it waits `timeout` seconds
// for more (restarting after each digit). It ends on numDigits, finishOnKey, timeout, or speech heard.
import { dtmfMs, speechMs } from '../audio/durations.js';
import type { GatherVerb } from '../twiml/verbs.js';
import type { MachineEvent } from './types.js';
import { DIGIT_MS, SPEECH_CONFIDENCE, gatherActs } from './party.js';
import { actionOrDocument, type GatherPending, type Outcome, type Run } from './pending.js';
import { loopsOf, playOnce } from './say-play.js';
import { appendSegment, cutTimeline } from './segments.js';

type Heard = Extract<MachineEvent, { type: 'heard' }>;

export function startGather(run: Run, verb: GatherVerb, t: number): Outcome {
  const state = run.state;
  const gather: GatherPending = {
    kind: 'gather',
    promptEndMs: null,
    digits: '',
    timeoutAtMs: null,
    acts: gatherActs(state.party, verb.input, t),
    speech: null,
  };
  state.pending = gather;
  state.at = [state.at[0], 0];
  state.played = 0;
  if (!playPrompt(run, verb, gather, t)) gather.timeoutAtMs = t + verb.timeout * 1000;
  return 'wait';
}

export function gatherWakeMs(gather: GatherPending): number | null {
  const times = [gather.acts[0]?.atMs, gather.promptEndMs, gather.timeoutAtMs, gather.speech?.endMs];
  const due = times.filter((ms): ms is number => typeof ms === 'number');
  return due.length > 0 ? Math.min(...due) : null;
}

/** Does what is due at `t`: the party's acts, the next prompt, speech heard to its end, the timeout. */
export function gatherTimer(run: Run, verb: GatherVerb, t: number): Outcome {
  const gather = run.state.pending as GatherPending;
  while (gather.acts.length > 0 && gather.acts[0].atMs <= t) {
    const act = gather.acts.shift()!;
    const outcome =
      act.sound.kind === 'dtmf'
        ? hearDigits(run, verb, gather, act.sound.digits, act.atMs - DIGIT_MS, t)
        : hearSpeech(run, verb, gather, act.sound.text, SPEECH_CONFIDENCE, t);
    if (outcome !== null && outcome !== 'wait') return outcome;
  }
  if (gather.promptEndMs !== null && gather.promptEndMs <= t) {
    run.state.played += 1;
    if (!playPrompt(run, verb, gather, t)) {
      gather.promptEndMs = null;
      if (gather.speech === null) gather.timeoutAtMs = t + verb.timeout * 1000;
    }
  }
  if (gather.speech !== null && gather.speech.endMs <= t) return finish(run, verb, gather);
  if (gather.timeoutAtMs !== null && gather.timeoutAtMs <= t) return finish(run, verb, gather);
  return 'wait';
}

/** Input from a peer (or the sandbox API); null when the gather does not listen for it. */
export function gatherHeard(run: Run, verb: GatherVerb, event: Heard, t: number): Outcome | null {
  const gather = run.state.pending as GatherPending;
  if (event.sound.kind === 'dtmf') return hearDigits(run, verb, gather, event.sound.digits, t, t);
  return hearSpeech(run, verb, gather, event.sound.text, event.confidence ?? SPEECH_CONFIDENCE, t);
}

/** Digits whose tones started at `fromMs`, taken in at `t`. */
function hearDigits(
  run: Run,
  verb: GatherVerb,
  gather: GatherPending,
  digits: string,
  fromMs: number,
  t: number,
): Outcome | null {
  if (!verb.input.includes('dtmf')) return null;
  appendSegment(run.state.timeline, {
    atMs: fromMs,
    ms: dtmfMs(digits),
    side: 'party',
    sound: { kind: 'dtmf', digits },
  });
  for (const digit of digits.replaceAll('w', '')) {
    bargeIn(run, gather, t);
    if (verb.finishOnKey !== '' && verb.finishOnKey.includes(digit)) return finish(run, verb, gather);
    gather.digits += digit;
    if (verb.numDigits !== null && gather.digits.length >= verb.numDigits) return finish(run, verb, gather);
    gather.timeoutAtMs = t + verb.timeout * 1000;
  }
  return 'wait';
}

/** Speech starting at `t`: it stops the prompts, and the gather ends with it once it is over. */
function hearSpeech(
  run: Run,
  verb: GatherVerb,
  gather: GatherPending,
  text: string,
  confidence: number,
  t: number,
): Outcome | null {
  if (!verb.input.includes('speech') || gather.speech !== null) return null;
  const ms = speechMs(text);
  appendSegment(run.state.timeline, { atMs: t, ms, side: 'party', sound: { kind: 'speech', text } });
  bargeIn(run, gather, t);
  gather.speech = { text, confidence, endMs: t + ms };
  gather.timeoutAtMs = null;
  return 'wait';
}

function bargeIn(run: Run, gather: GatherPending, t: number): void {
  if (gather.promptEndMs === null) return;
  cutTimeline(run.state.timeline, t, 'platform');
  gather.promptEndMs = null;
}

/** Starts the prompt at `at`/`played` (skipping any that take no time); false when none is left. */
function playPrompt(run: Run, verb: GatherVerb, gather: GatherPending, t: number): boolean {
  const state = run.state;
  for (let child = verb.children[state.at[1]]; child !== undefined; child = verb.children[state.at[1]]) {
    if (state.played < loopsOf(child)) {
      const endMs = playOnce(run, child, t);
      if (endMs > t) {
        gather.promptEndMs = endMs;
        return true;
      }
      state.played += 1;
    } else {
      state.at = [state.at[0], state.at[1] + 1];
      state.played = 0;
    }
  }
  return false;
}

/** Submits the result; an empty one falls through to the next verb unless actionOnEmptyResult. */
function finish(run: Run, verb: GatherVerb, gather: GatherPending): Outcome {
  const { speech, digits } = gather;
  if (speech === null && digits === '' && !verb.actionOnEmptyResult) return 'next';
  const params: Record<string, string> =
    speech !== null ? { SpeechResult: speech.text, Confidence: String(speech.confidence) } : { Digits: digits };
  return actionOrDocument(verb.action, verb.method, params, run.state.instructions.url);
}
