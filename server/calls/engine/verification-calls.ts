// Verification by voice (issue 21 point 8): a code is spoken by a call leg of `purpose` `verification`, placed by
// the engine like any call (so the sandbox records what the user heard), but never shown to the account: the calls
// API skips such legs and their recordings, they have no status callback (so no webhooks), and what they store
// holding the code is sealed (leg-seal.ts). How the leg ends is reported to the verification it belongs to.
import type { Db, Tx } from '../../store/db.js';
import type { CallRow } from '../../store/schema.js';
import type { OtpDelivery } from '../../carrier/otp.js';
import { insertCall } from './store.js';
import { newLeg } from '../rows.js';
import type { EffectWork } from './work.js';
import type { LegSeal } from './leg-seal.js';

/** The sandbox service number verification calls come from (in the magic range, so no account can hold it). */
export const VERIFICATION_CALLER = '+15005550100';

/** Seconds the call rings before it gives up (no-answer), and the most it may last. */
const RING_TIMEOUT_S = 30;
const TIME_LIMIT_S = 300;

/** How a verification leg that did not speak its code through ended. */
export interface VerificationCallFailure {
  accountSid: string;
  to: string;
  /** When the leg was placed: the verification is the one whose latest voice send to `to` was at or before it. */
  placedAt: string;
  errorCode: string;
  errorMessage: string;
}

/** Where the failures go (the verification service). */
export interface VerificationCallReports {
  verificationCallFailed(tx: Tx, failure: VerificationCallFailure): Promise<void>;
}

export class VerificationCalls {
  constructor(
    private readonly work: EffectWork,
    private readonly seal: LegSeal,
    private readonly reports: VerificationCallReports,
  ) {}

  /** Places the call that speaks `code.text` twice, recorded, in the transaction that sends the code; its sid. */
  async place(tx: Tx, code: Pick<OtpDelivery, 'accountSid' | 'to' | 'text'>): Promise<string> {
    const leg = newLeg(
      {
        account_sid: code.accountSid,
        from_number: VERIFICATION_CALLER,
        to_number: code.to,
        direction: 'outbound-api',
        status: 'queued',
        purpose: 'verification',
        record: 1,
        timeout: RING_TIMEOUT_S,
        time_limit: TIME_LIMIT_S,
      },
      tx.clock.now(),
    );
    leg.twiml = this.seal.close(leg, 'twiml', spokenTwice(code.text));
    await insertCall(tx.db, leg);
    await this.work.place(tx, leg);
    return leg.sid;
  }

  /** A verification leg ended (told by the driver): anything but `completed` fails its verification. */
  async ended(tx: Tx, leg: CallRow): Promise<void> {
    if (leg.status === 'completed') return;
    const failure = FAILURES[leg.status] ?? {
      errorCode: leg.error_code ?? 'call_failed',
      errorMessage: leg.error_message ?? 'The call could not be placed.',
    };
    const placed = { accountSid: leg.account_sid, to: leg.to_number, placedAt: leg.date_created };
    await this.reports.verificationCallFailed(tx, { ...placed, ...failure });
  }
}

const FAILURES: Partial<Record<CallRow['status'], { errorCode: string; errorMessage: string }>> = {
  busy: { errorCode: 'busy', errorMessage: 'The line was busy.' },
  'no-answer': { errorCode: 'no_answer', errorMessage: 'Nobody answered the call.' },
  canceled: { errorCode: 'call_canceled', errorMessage: 'The call was canceled before it was answered.' },
};

/** Sandbox: the recording of a verification call of the account (its status, and its audio once completed). */
export function verificationRecording(db: Db, accountSid: string, callSid: string) {
  return db
    .selectFrom('recordings')
    .innerJoin('calls', 'calls.sid', 'recordings.call_sid')
    .select(['recordings.sid', 'recordings.status', 'recordings.audio'])
    .where('calls.sid', '=', callSid)
    .where('calls.account_sid', '=', accountSid)
    .where('calls.purpose', '=', 'verification')
    .executeTakeFirst();
}

/** The instructions: the text, a pause, the text again, then hang up. */
function spokenTwice(text: string): string {
  const say = `<Say>${escapeXml(text)}</Say>`;
  return `<Response>${say}<Pause length="1"/>${say}<Hangup/></Response>`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
