// The call-control instructions a call runs: a TwiML-compatible subset, parsed and checked (parse.ts), with
// Twilio's attribute names and defaults filled in, so the machine (../machine) never reads raw XML.
export type HttpMethod = 'GET' | 'POST';

/** What the platform says: synthetic speech of `text`, `loop` times (Twilio's loop="0" is bounded to 1000). */
export interface SayVerb {
  verb: 'Say';
  text: string;
  /** Twilio's `voice` (default `man`); kept, and shown in the call log. */
  voice: string;
  /** Default `en-US`. */
  language: string;
  loop: number;
}

/** Audio from `url` (the sandbox plays a tone standing for it), or the DTMF `digits` (`w` = half a second pause). */
export interface PlayVerb {
  verb: 'Play';
  url: string | null;
  digits: string | null;
  loop: number;
}

export interface PauseVerb {
  verb: 'Pause';
  /** Seconds, default 1. */
  length: number;
}

export type GatherChild = SayVerb | PlayVerb | PauseVerb;

export interface GatherVerb {
  verb: 'Gather';
  /** Default `['dtmf']`; `dtmf speech` gives both. */
  input: ('dtmf' | 'speech')[];
  /** Ends the gather when this many digits were pressed; null: no limit (default). */
  numDigits: number | null;
  /** Seconds to wait for the first or next input once the prompts have played (default 5). */
  timeout: number;
  /** Default `#`; an empty string turns it off. */
  finishOnKey: string;
  /** Absolute URL (relative ones resolved against the document's URL); null: see the machine. */
  action: string | null;
  method: HttpMethod;
  actionOnEmptyResult: boolean;
  children: GatherChild[];
}

export interface RecordVerb {
  verb: 'Record';
  /** Seconds, default 3600. */
  maxLength: number;
  /** Seconds of silence that end the recording (default 5; 0 = never). */
  timeout: number;
  /** Default `1234567890*#`. */
  finishOnKey: string;
  playBeep: boolean;
  action: string | null;
  method: HttpMethod;
  recordingStatusCallback: string | null;
}

export type DialRecord =
  | 'do-not-record'
  | 'record-from-answer'
  | 'record-from-ringing'
  | 'record-from-answer-dual'
  | 'record-from-ringing-dual';

export interface DialVerb {
  verb: 'Dial';
  /** E.164, from the `<Number>` noun or the verb's text. */
  number: string;
  callerId: string | null;
  /** Seconds to ring (default 30). */
  timeout: number;
  /** Seconds the bridged call may last (default 14400). */
  timeLimit: number;
  action: string | null;
  method: HttpMethod;
  /** `true` / `record-from-answer` etc., normalised (Twilio's `true` is `record-from-answer`). */
  record: DialRecord;
}

export interface RedirectVerb {
  verb: 'Redirect';
  url: string;
  method: HttpMethod;
}

interface HangupVerb {
  verb: 'Hangup';
}

interface RejectVerb {
  verb: 'Reject';
  reason: 'rejected' | 'busy';
}

export type Verb =
  SayVerb | PlayVerb | PauseVerb | GatherVerb | RecordVerb | DialVerb | RedirectVerb | HangupVerb | RejectVerb;

/** One `<Response>` document. */
export interface Instructions {
  verbs: Verb[];
  /** The URL it was fetched from (relative URLs in it were resolved against it); null when given inline. */
  url: string | null;
}

/** A document, or the readable reason it is not one (names the element and attribute at fault). */
export type ParseResult = { ok: true; instructions: Instructions } | { ok: false; error: string };

/** The URLs a document's verbs would call, each with what it is (`<Gather> action`): for the URL policy. */
export function urlsOf(instructions: Instructions): { what: string; url: string }[] {
  const urls: { what: string; url: string }[] = [];
  const add = (what: string, url: string | null) => {
    if (url !== null) urls.push({ what, url });
  };
  for (const verb of instructions.verbs) {
    if (verb.verb === 'Play') add('<Play> URL', verb.url);
    else if (verb.verb === 'Redirect') add('<Redirect> URL', verb.url);
    else if (verb.verb === 'Dial') add('<Dial> action', verb.action);
    else if (verb.verb === 'Record') {
      add('<Record> action', verb.action);
      add('<Record> recordingStatusCallback', verb.recordingStatusCallback);
    } else if (verb.verb === 'Gather') {
      add('<Gather> action', verb.action);
      for (const child of verb.children) if (child.verb === 'Play') add('<Gather><Play> URL', child.url);
    }
  }
  return urls;
}
