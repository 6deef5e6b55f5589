import { describe, expect, it } from 'vitest';
import { isSid, newSid, timeOrderedHex } from '../server/ids.js';

describe('identifiers', () => {
  it('are a prefix and 32 lowercase hex digits, distinct within one millisecond', () => {
    const sids = Array.from({ length: 10_000 }, () => newSid('message', Date.now()));
    for (const sid of sids.slice(0, 100)) expect(isSid('message', sid)).toBe(true);
    expect(new Set(sids).size).toBe(sids.length);
  });

  it('sort in the order of their creation time, so new rows go to the end of an index', () => {
    const times = [0, 1, 255, 256, 1_700_000_000_000, 1_700_000_000_001, 2 ** 47];
    const keys = times.map((t) => timeOrderedHex(t));
    expect([...keys].sort()).toEqual(keys);
    expect(keys.every((k) => /^[0-9a-f]{32}$/.test(k))).toBe(true);
    expect(timeOrderedHex(1_700_000_000_000).slice(0, 12)).toBe((1_700_000_000_000).toString(16).padStart(12, '0'));
  });
});
