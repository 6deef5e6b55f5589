// The spam score: a pure function of a number's signals. Each rule that applies adds its fixed weight and says
// why in words; the score is the sum clamped to 0-100. The table in spec/openapi.yaml (lookupPhoneNumber)
// documents these same rules, weights and thresholds.
import type { components } from '../../generated/openapi.js';
import type { LineType } from './classify.js';

export type SpamReason = components['schemas']['SpamReason'];

/** What this platform has seen of one number (see signals.ts). */
export interface PlatformSignals {
  /** An account on this platform holds the number. */
  held: boolean;
  /** Outbound messages from it created in the last hour, and their distinct recipients. */
  outboundLastHour: number;
  recipientsLastHour: number;
  /** Outbound messages from it in the last 24 hours that reached a final status, and how many of those failed or went
   * undelivered. */
  finishedLastDay: number;
  failedLastDay: number;
  /** Verification codes sent to it in the last 24 hours, and how many of its verifications were approved in that
   * time. */
  verificationSendsLastDay: number;
  verificationsApprovedLastDay: number;
}

export const NOTHING_SEEN: PlatformSignals = {
  held: false,
  outboundLastHour: 0,
  recipientsLastHour: 0,
  finishedLastDay: 0,
  failedLastDay: 0,
  verificationSendsLastDay: 0,
  verificationsApprovedLastDay: 0,
};

export interface SpamSignals {
  valid: boolean;
  lineType: LineType;
  /** The numbering plan gives the range a type (North America's fixed-or-mobile ranges count as typed). */
  typeKnown: boolean;
  platform: PlatformSignals;
}

const THRESHOLDS = {
  outboundPerHour: 50,
  recipientsPerHour: 25,
  /** Failure share counts only from this many finished messages on. */
  minFinishedForFailureRate: 10,
  failureShare: 0.5,
  unverifiedSends: 3,
} as const;

interface Rule {
  reason: SpamReason['reason'];
  weight: number;
  /** The sentence explaining the reason when the rule applies, else null. */
  explain(s: SpamSignals): string | null;
}

/**
 * Traffic figures span every account, so a reason names only a band, never a count: an exact figure would tell one
 * tenant how much another sends. A band is "very" from this many times its rule's threshold on.
 */
const VERY = 4;
/** The failure share from which "most" rather than "half or more" of its messages failed. */
const MOST = 0.75;
const band = (count: number, threshold: number, high: string, veryHigh: string) =>
  count >= threshold * VERY ? veryHigh : high;

const RULES: Rule[] = [
  {
    reason: 'invalid_number',
    weight: 30,
    explain: (s) => (s.valid ? null : 'The number is not a valid phone number.'),
  },
  {
    reason: 'premium_rate_number',
    weight: 60,
    explain: (s) => (s.lineType === 'premium' ? 'Premium-rate line: calls and messages cost the sender extra.' : null),
  },
  {
    reason: 'shared_cost_number',
    weight: 30,
    explain: (s) => (s.lineType === 'shared_cost' ? 'Shared-cost line: the caller pays part of the cost.' : null),
  },
  {
    reason: 'unknown_line_type',
    weight: 10,
    explain: (s) => (s.typeKnown ? null : 'The numbering plan gives this number no line type.'),
  },
  {
    reason: 'high_outbound_volume',
    weight: 25,
    explain: ({ platform: p }) =>
      p.outboundLastHour >= THRESHOLDS.outboundPerHour
        ? `${band(p.outboundLastHour, THRESHOLDS.outboundPerHour, 'High', 'Very high')} volume of messages ` +
          'from it through this platform in the last hour.'
        : null,
  },
  {
    reason: 'many_distinct_recipients',
    weight: 25,
    explain: ({ platform: p }) =>
      p.recipientsLastHour >= THRESHOLDS.recipientsPerHour
        ? `It messaged ${band(p.recipientsLastHour, THRESHOLDS.recipientsPerHour, 'many', 'very many')} ` +
          'distinct numbers in the last hour.'
        : null,
  },
  {
    reason: 'high_failure_rate',
    weight: 30,
    explain: ({ platform: p }) =>
      p.finishedLastDay >= THRESHOLDS.minFinishedForFailureRate &&
      p.failedLastDay / p.finishedLastDay >= THRESHOLDS.failureShare
        ? `${p.failedLastDay / p.finishedLastDay >= MOST ? 'Most' : 'Half or more'} of its finished messages ` +
          'in the last 24 hours failed or went undelivered.'
        : null,
  },
  {
    reason: 'unverified_otp_pattern',
    weight: 40,
    explain: ({ platform: p }) =>
      p.verificationSendsLastDay >= THRESHOLDS.unverifiedSends && p.verificationsApprovedLastDay === 0
        ? `${band(p.verificationSendsLastDay, THRESHOLDS.unverifiedSends, 'Several', 'Many')} verification codes ` +
          'went to it in the last 24 hours and none was checked correctly (SMS pumping pattern).'
        : null,
  },
  {
    reason: 'held_on_platform',
    weight: -10,
    explain: (s) => (s.platform.held ? 'An account on this platform holds this number.' : null),
  },
  {
    reason: 'not_held_on_platform',
    weight: 5,
    explain: (s) => (s.platform.held ? null : 'No account on this platform holds this number.'),
  },
];

export function scoreSpam(signals: SpamSignals): { spam_score: number; spam_reasons: SpamReason[] } {
  const reasons: SpamReason[] = [];
  for (const rule of RULES) {
    const description = rule.explain(signals);
    if (description !== null) reasons.push({ reason: rule.reason, weight: rule.weight, description });
  }
  const sum = reasons.reduce((total, r) => total + r.weight, 0);
  return { spam_score: Math.min(100, Math.max(0, sum)), spam_reasons: reasons };
}
