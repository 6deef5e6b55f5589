import { describe, expect, it } from 'vitest';
import { NOTHING_SEEN, scoreSpam, type PlatformSignals, type SpamSignals } from '../../server/lookups/spam-score.js';

// The scoring rules as a table: signals in, reasons (with weights) and the clamped score out.
const mobile = (platform: Partial<PlatformSignals> = {}): SpamSignals => ({
  valid: true,
  lineType: 'mobile',
  typeKnown: true,
  platform: { ...NOTHING_SEEN, ...platform },
});

describe('spam score', () => {
  it.each<[string, SpamSignals, [string, number][], number]>([
    ['an ordinary outside mobile', mobile(), [['not_held_on_platform', 5]], 5],
    ['a number held on the platform', mobile({ held: true }), [['held_on_platform', -10]], 0],
    [
      'an invalid number',
      { valid: false, lineType: 'unknown', typeKnown: false, platform: NOTHING_SEEN },
      [
        ['invalid_number', 30],
        ['unknown_line_type', 10],
        ['not_held_on_platform', 5],
      ],
      45,
    ],
    [
      'a premium-rate line',
      { ...mobile(), lineType: 'premium' },
      [
        ['premium_rate_number', 60],
        ['not_held_on_platform', 5],
      ],
      65,
    ],
    [
      'a shared-cost line',
      { ...mobile(), lineType: 'shared_cost' },
      [
        ['shared_cost_number', 30],
        ['not_held_on_platform', 5],
      ],
      35,
    ],
    [
      'a fixed-or-mobile range (typed, line type unknown)',
      { ...mobile(), lineType: 'unknown' },
      [['not_held_on_platform', 5]],
      5,
    ],
    ['49 messages in an hour', mobile({ held: true, outboundLastHour: 49 }), [['held_on_platform', -10]], 0],
    [
      '50 messages in an hour',
      mobile({ held: true, outboundLastHour: 50 }),
      [
        ['high_outbound_volume', 25],
        ['held_on_platform', -10],
      ],
      15,
    ],
    [
      '25 distinct recipients in an hour',
      mobile({ held: true, outboundLastHour: 25, recipientsLastHour: 25 }),
      [
        ['many_distinct_recipients', 25],
        ['held_on_platform', -10],
      ],
      15,
    ],
    [
      'half of 10 finished messages failed',
      mobile({ held: true, finishedLastDay: 10, failedLastDay: 5 }),
      [
        ['high_failure_rate', 30],
        ['held_on_platform', -10],
      ],
      20,
    ],
    [
      '4 of 10 finished messages failed',
      mobile({ held: true, finishedLastDay: 10, failedLastDay: 4 }),
      [['held_on_platform', -10]],
      0,
    ],
    [
      'all of 9 finished messages failed (too few to judge)',
      mobile({ held: true, finishedLastDay: 9, failedLastDay: 9 }),
      [['held_on_platform', -10]],
      0,
    ],
    [
      '3 verification sends, none approved',
      mobile({ verificationSendsLastDay: 3 }),
      [
        ['unverified_otp_pattern', 40],
        ['not_held_on_platform', 5],
      ],
      45,
    ],
    [
      '3 verification sends, one approved',
      mobile({ verificationSendsLastDay: 3, verificationsApprovedLastDay: 1 }),
      [['not_held_on_platform', 5]],
      5,
    ],
    [
      'everything at once (clamped to 100)',
      {
        valid: true,
        lineType: 'premium',
        typeKnown: true,
        platform: {
          ...NOTHING_SEEN,
          outboundLastHour: 500,
          recipientsLastHour: 400,
          finishedLastDay: 300,
          failedLastDay: 290,
          verificationSendsLastDay: 9,
        },
      },
      [
        ['premium_rate_number', 60],
        ['high_outbound_volume', 25],
        ['many_distinct_recipients', 25],
        ['high_failure_rate', 30],
        ['unverified_otp_pattern', 40],
        ['not_held_on_platform', 5],
      ],
      100,
    ],
  ])('scores %s', (_case, signals, reasons, score) => {
    const result = scoreSpam(signals);
    expect(result.spam_reasons.map((r) => [r.reason, r.weight])).toEqual(reasons);
    expect(result.spam_score).toBe(score);
    for (const reason of result.spam_reasons) expect(reason.description).toMatch(/\.$/);
  });

  it.each<[string, Partial<PlatformSignals>, string[]]>([
    [
      'the lower bands',
      { held: true, outboundLastHour: 120, recipientsLastHour: 80, finishedLastDay: 40, failedLastDay: 29 },
      [
        'High volume of messages from it through this platform in the last hour.',
        'It messaged many distinct numbers in the last hour.',
        'Half or more of its finished messages in the last 24 hours failed or went undelivered.',
        'An account on this platform holds this number.',
      ],
    ],
    [
      'the upper bands',
      { outboundLastHour: 200, recipientsLastHour: 100, finishedLastDay: 40, failedLastDay: 30 },
      [
        'Very high volume of messages from it through this platform in the last hour.',
        'It messaged very many distinct numbers in the last hour.',
        'Most of its finished messages in the last 24 hours failed or went undelivered.',
        'No account on this platform holds this number.',
      ],
    ],
    [
      'verification codes',
      { verificationSendsLastDay: 3 },
      [
        'Several verification codes went to it in the last 24 hours and none was checked correctly ' +
          '(SMS pumping pattern).',
        'No account on this platform holds this number.',
      ],
    ],
    [
      'many verification codes',
      { verificationSendsLastDay: 12 },
      [
        'Many verification codes went to it in the last 24 hours and none was checked correctly ' +
          '(SMS pumping pattern).',
        'No account on this platform holds this number.',
      ],
    ],
  ])('describes traffic in bands, never in counts: %s', (_case, platform, descriptions) => {
    const { spam_reasons } = scoreSpam(mobile(platform));
    expect(spam_reasons.map((r) => r.description)).toEqual(descriptions);
  });

  it('is deterministic', () => {
    const signals = mobile({ outboundLastHour: 70, recipientsLastHour: 30 });
    expect(scoreSpam(signals)).toEqual(scoreSpam(structuredClone(signals)));
  });
});
