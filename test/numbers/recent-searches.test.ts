// The memory of recent number searches is bounded by what its answers cost, empty ones included: a caller varying a
// filter at will (a locality that matches nothing) cannot grow it without end.
import { describe, expect, it } from 'vitest';
import { RecentSearches } from '../../server/numbers/recent-searches.js';

describe('recent number searches', () => {
  it('forgets the least recently used answers, empty ones too, once their cost passes the bound', () => {
    const searches = new RecentSearches();
    // Each costs 2 (no number, a key under 16 characters, plus one): 60,000 of them are over the bound of 100,000.
    for (let i = 0; i < 60_000; i++) searches.set(`k${i}`, 1, []);
    expect(searches.get('k0', 1)).toBeUndefined();
    expect(searches.get('k9999', 1)).toBeUndefined();
    expect(searches.get('k10000', 1)).toEqual([]);
    expect(searches.get('k59999', 1)).toEqual([]);
  });

  it('answers nothing remembered under an older version once a newer one was read', () => {
    const searches = new RecentSearches();
    searches.set('US|local', 4, []);
    expect(searches.get('US|local', 4)).toEqual([]);
    expect(searches.get('US|local', 5)).toBeUndefined();
    searches.set('US|local', 4, []);
    expect(searches.get('US|local', 5)).toBeUndefined();
  });
});
