// How long sounds last in call time: shared by the machine (to know when a verb ends) and the renderer (to draw
// them), so a recording's length always matches what the call log says.

/** One DTMF digit: 100 ms of tone, then 100 ms of silence (well above ITU-T Q.24's 40 ms minimums). */
export const DTMF_TONE_MS = 100;
export const DTMF_GAP_MS = 100;
/** `w` in Play digits: half a second of silence (Twilio's meaning). */
export const DTMF_WAIT_MS = 500;
/** The recording beep (1 kHz). */
export const BEEP_MS = 500;
/** What `<Play>` of a URL lasts in the sandbox, which plays a tone instead of downloading the audio. */
export const PLAY_URL_MS = 2000;

/** How long a string of Play digits lasts. */
export function dtmfMs(digits: string): number {
  let ms = 0;
  for (const digit of digits) ms += digit === 'w' ? DTMF_WAIT_MS : DTMF_TONE_MS + DTMF_GAP_MS;
  return ms;
}

/** How long synthetic speech of `text` lasts: about 150 words a minute (70 ms a character), at least 400 ms. */
export function speechMs(text: string): number {
  return Math.max(400, text.trim().length * 70);
}
