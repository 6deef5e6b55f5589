// Sealing itself (server/accounts/seal.ts): each seal under its own IV, drawn from a pool the module refills.
import { describe, expect, it } from 'vitest';
import { seal, sealKey, unseal } from '../../server/accounts/seal.js';

describe('seal', () => {
  const key = sealKey('a server secret', 'test', 'seal');

  it('seals the same text under a new IV every time, past several refills of the pool, and each opens', () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const sealed = seal(key, 'VE1', '123456');
      ivs.add(sealed.split('.')[0]);
      expect(unseal(key, 'VE1', sealed)).toBe('123456');
    }
    expect(ivs.size).toBe(1000);
  });

  it('does not open what was sealed for something else, or under another key', () => {
    const sealed = seal(key, 'VE1', '123456');
    expect(() => unseal(key, 'VE2', sealed)).toThrow();
    expect(() => unseal(sealKey('another secret', 'test', 'seal'), 'VE1', sealed)).toThrow();
  });
});
