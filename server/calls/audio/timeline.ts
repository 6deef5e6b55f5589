// What a call sounded like, as a list of timed segments: the machine appends to it as verbs play and input is
// heard, and a recording is rendered from a window of it (render.ts) into a WAV file.

/** `platform`: what this call leg plays (Say, Play, beep). `party`: what comes from the other end (digits, speech). */
export type Side = 'platform' | 'party';

export type Sound =
  | { kind: 'silence' }
  /** Synthetic speech standing for `text` (deterministic: the same text sounds the same). */
  | { kind: 'speech'; text: string }
  /** A steady tone: the sandbox does not download `<Play>` audio and plays this instead. */
  | { kind: 'tone'; hz: number }
  /** The recording beep. */
  | { kind: 'beep' }
  /** Real DTMF dual tones, one per digit, at the standard timing (see dtmf.ts); `w` is a half-second pause. */
  | { kind: 'dtmf'; digits: string }
  /** The ringing heard before an answer (for recordings that start from ringing). */
  | { kind: 'ringback' };

export interface Segment {
  /** Call time (ms) since the leg was answered, at which it starts (ringing is negative). */
  atMs: number;
  /** Its length in ms of call time. */
  ms: number;
  side: Side;
  sound: Sound;
}
