// What the sandbox's simulated callees do: the parties the machine acts itself, as timed acts a verb waits for.
import { DTMF_GAP_MS, DTMF_TONE_MS, dtmfMs } from '../audio/durations.js';
import type { GatherVerb } from '../twiml/verbs.js';
import type { Party } from './types.js';

export const LISTENER_MESSAGE = 'Hello, this is a message left in the sandbox.';
export const VOICEMAIL_GREETING =
  'You have reached the voicemail of the sandbox. Please leave a message after the tone.';
/** How sure the sandbox's speech recognition is of what it heard. */
export const SPEECH_CONFIDENCE = 0.9;
/** A presser or speaker acts one second (call time) after a verb starts listening. */
const REACTION_MS = 1000;
/** One pressed digit: its tone and the gap after it, taken in when both are over. */
export const DIGIT_MS = DTMF_TONE_MS + DTMF_GAP_MS;

/** One thing the party does at `atMs`: a digit is taken in once its tone is over, speech when it starts. */
export interface Act {
  atMs: number;
  sound: { kind: 'dtmf'; digits: string } | { kind: 'speech'; text: string };
}

/** What the party does during a Gather that starts listening at `startMs`. */
export function gatherActs(party: Party, input: GatherVerb['input'], startMs: number): Act[] {
  if (party.kind === 'presser' && input.includes('dtmf')) return presses(party.digits, startMs + REACTION_MS);
  if (party.kind === 'speaker' && input.includes('speech')) return [say(party.phrase, startMs + REACTION_MS)];
  return [];
}

/** What the party does during a Record whose window opens at `openMs`. */
export function recordActs(party: Party, openMs: number): Act[] {
  if (party.kind === 'listener') return [say(LISTENER_MESSAGE, openMs)];
  if (party.kind === 'speaker') return [say(party.phrase, openMs)];
  if (party.kind === 'presser') return presses(party.digits, openMs + REACTION_MS);
  return [];
}

function say(text: string, atMs: number): Act {
  return { atMs, sound: { kind: 'speech', text } };
}

/** One act per digit (a `w` is half a second of nothing), the first tone starting at `firstMs`. */
function presses(digits: string, firstMs: number): Act[] {
  return [...digits].flatMap((digit, i): Act[] =>
    digit === 'w'
      ? []
      : [{ atMs: firstMs + dtmfMs(digits.slice(0, i)) + DIGIT_MS, sound: { kind: 'dtmf', digits: digit } }],
  );
}
