// Runs the guard's fixture files alone (they fail on purpose), with the same setup file as the real suite.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname + '/../..',
    include: ['test/network-guard/*.fixture.ts'],
    setupFiles: ['test/support/network-guard.ts'],
    // In every test process and so in the server's worker threads too (webhooks are sent from one).
    execArgv: ['--import', './test/support/network-guard-preload.mjs'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
