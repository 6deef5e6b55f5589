import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one file at a time on a 2-CPU machine (CPUs - 1), but most test time is waiting (timers,
    // sockets, a child server, a browser): three files at once keep both CPUs busy and CI within its 20 minutes.
    maxWorkers: 3,
    reporters: ['default'],
    // One Prism proxy for the whole run; every test file may only reach loopback.
    globalSetup: ['test/support/contract-global.ts'],
    setupFiles: ['test/support/network-guard.ts'],
    // In every test process and so in the server's worker threads too (webhooks are sent from one).
    execArgv: ['--import', './test/support/network-guard-preload.mjs'],
  },
});
