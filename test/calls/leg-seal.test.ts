// LegSeal: what a verification leg stores is sealed (bound to its leg and column); every other leg's is stored as is.
import { describe, expect, it } from 'vitest';
import { LegSeal } from '../../server/calls/engine/leg-seal.js';

const TEXT = '<Response><Say>Your verification code is 1, 2, 3, 4.</Say></Response>';
const verification = { sid: 'CA' + 'a'.repeat(32), purpose: 'verification' as const };

describe('LegSeal', () => {
  const seal = new LegSeal('server-secret');

  it('stores an API leg’s text as it is', () => {
    const api = { ...verification, purpose: 'api' as const };
    expect(seal.close(api, 'twiml', TEXT)).toBe(TEXT);
    expect(seal.open(api, 'twiml', TEXT)).toBe(TEXT);
  });

  it('seals a verification leg’s text, which opens back for the same leg and column only', () => {
    const sealed = seal.close(verification, 'twiml', TEXT);
    expect(sealed).not.toContain('1, 2, 3, 4');
    expect(seal.open(verification, 'twiml', sealed)).toBe(TEXT);
    expect(() => seal.open(verification, 'machine', sealed)).toThrow();
    expect(() => seal.open({ ...verification, sid: 'CA' + 'b'.repeat(32) }, 'twiml', sealed)).toThrow();
    expect(() => new LegSeal('another-secret').open(verification, 'twiml', sealed)).toThrow();
  });
});
