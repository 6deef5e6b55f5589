// The sandbox's call prices: per started minute, by destination country, inbound at one rate, nothing unanswered.
import { describe, expect, it } from 'vitest';
import { callPrice } from '../../server/carrier/sandbox-prices.js';

describe('sandbox call prices', () => {
  it.each([
    ['+14155550123', 'outbound', 1, 0.014],
    ['+14155550123', 'outbound', 60, 0.014],
    ['+14155550123', 'outbound', 61, 0.028],
    ['+442071838750', 'outbound', 125, 0.072],
    ['+8613800138000', 'outbound', 30, 0.1],
    ['+14155550123', 'inbound', 90, 0.017],
    ['+14155550123', 'outbound', 0, 0],
  ] as const)('a call to %s (%s) of %i s costs %d', (to, direction, seconds, price) => {
    expect(callPrice(to, direction, seconds)).toBe(price);
  });
});
