import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at once on two CPUs: much of a test's time is waiting on timers, sockets, child processes and the
    // database (two workers kept the CPUs 60% busy). Measured 2026-11-26 on a quiet machine, every file on both
    // engines: two workers 562 s, three 472 s. Each process is kept from file to file with its module cache: loading
    // the server's modules again for each of the 140 files took a fifth of the run. Each file starts its own servers,
    // but the files of one process share its module-level state: the caches, and signals such as the API's crowd
    // (request-context.ts), which a file run just before may have set. A test reading such state must not assume it
    // starts fresh (test/http.test.ts's crowd test times its windows from its own start).
    maxWorkers: 3,
    isolate: false,
    // The longest files first (a fresh clone has no durations cached): see test/support/sequencer.ts.
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default'],
    // One Prism proxy for the whole run; every test file may only reach loopback.
    globalSetup: ['test/support/contract-global.ts'],
    setupFiles: ['test/support/network-guard.ts'],
    // In every test process and so in the server's worker threads too (webhooks are sent from one).
    execArgv: ['--import', './test/support/network-guard-preload.mjs'],
  },
});
