// The fraud guard's rule table, as a pure function of a lookup result (the HTTP path is in send.test.ts).
import { describe, expect, it } from 'vitest';
import { blockedReason } from '../../server/verify/fraud.js';

describe('which destinations the fraud guard refuses', () => {
  const lookup = { phone_number: '+14155550123', valid: true, line_type: 'mobile' as const, spam_score: 5 };
  it.each([
    ['a valid mobile number with a low spam score', lookup, false],
    ['a premium-rate number', { ...lookup, line_type: 'premium' as const }, true],
    ['a shared-cost number', { ...lookup, line_type: 'shared_cost' as const }, true],
    ['a toll-free number', { ...lookup, line_type: 'toll_free' as const }, false],
    ['an invalid number', { ...lookup, valid: false }, true],
    ['a spam score of 79', { ...lookup, spam_score: 79 }, false],
    ['a spam score of 80', { ...lookup, spam_score: 80 }, true],
  ])('%s: blocked %s', (_case, input, blocked) => {
    const reason = blockedReason(input);
    expect(reason !== null).toBe(blocked);
    if (reason) expect(reason).toContain(input.phone_number);
  });
});
