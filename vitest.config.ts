import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    // One Prism proxy for the whole run; every test file may only reach loopback.
    globalSetup: ['test/support/contract-global.ts'],
    setupFiles: ['test/support/network-guard.ts'],
    // In every test process and so in the server's worker threads too (webhooks are sent from one).
    execArgv: ['--import', './test/support/network-guard-preload.mjs'],
  },
});
