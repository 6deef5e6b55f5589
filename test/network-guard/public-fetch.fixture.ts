// Fails on purpose (run by guard.test.ts): a test that fetches a public address, by IP and by name.
import { expect, it } from 'vitest';

it('fetches a public IP address', async () => {
  await expect(fetch('http://93.184.216.34/')).rejects.toThrow();
});

it('resolves a public name', async () => {
  await expect(fetch('http://example.com/')).rejects.toThrow();
});
