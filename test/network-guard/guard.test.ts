// The network guard of the test setup: a test reaching beyond loopback fails loudly, naming the host, and the
// attempt is refused before any connection is made.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { GUARD_MESSAGE, isLoopback } from '../support/network-guard.js';
import { ROOT } from '../support/run.js';

const VITEST = path.join(ROOT, 'node_modules/.bin/vitest');
// A child vitest run takes seconds to start on a busy machine.
const CHILD_RUN_MS = 120_000;

function runFixture(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const args = ['run', '--config', 'test/network-guard/vitest.fixture.config.ts', `test/network-guard/${file}`];
    const child = spawn(VITEST, args, { cwd: ROOT, env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the network guard', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])(
    'counts %s as loopback',
    (host) => {
      expect(isLoopback(host)).toBe(true);
    },
  );

  it.each(['93.184.216.34', '10.0.0.1', 'example.com', '2606:4700::1111'])('does not count %s as loopback', (host) => {
    expect(isLoopback(host)).toBe(false);
  });

  it(
    'fails a test whose server posts a status callback to a public host, naming it',
    async () => {
      const { code, output } = await runFixture('public-callback.fixture.ts');
      expect(code, output).toBe(1);
      expect(output).toContain(`${GUARD_MESSAGE}: a connection to callbacks.example.com`);
      expect(output).toMatch(/1 failed/);
    },
    CHILD_RUN_MS,
  );

  it(
    'fails a test that connects to a public address or looks up a public name, naming each',
    async () => {
      const { code, output } = await runFixture('public-fetch.fixture.ts');
      expect(code, output).toBe(1);
      expect(output).toContain(`${GUARD_MESSAGE}: a connection to 93.184.216.34`);
      expect(output).toContain(`${GUARD_MESSAGE}: a connection to example.com`);
      expect(output).toMatch(/2 failed/);
    },
    CHILD_RUN_MS,
  );
});
