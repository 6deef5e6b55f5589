import { describe, expect, it } from 'vitest';
import { ENGINES, startTestServer } from './support/server.js';

describe.each(ENGINES)('server secret for keyed hashes (%s)', (engine) => {
  it('is generated once, kept in the database and the same after a restart', async () => {
    const t = await startTestServer(engine);
    try {
      const first = t.server.services.secretKey;
      expect(first.length).toBeGreaterThanOrEqual(32);
      await t.restart();
      expect(t.server.services.secretKey).toBe(first);
    } finally {
      await t.stop();
    }
  });

  it('comes from SECRET_KEY when set', async () => {
    const secret = 's'.repeat(40);
    const t = await startTestServer(engine, { SECRET_KEY: secret });
    try {
      expect(t.server.services.secretKey).toBe(secret);
    } finally {
      await t.stop();
    }
  });
});
