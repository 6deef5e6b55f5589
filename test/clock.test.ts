// One clock: the server reads the current time only through the Clock of its app instance, so that two servers in
// one process can run on different clocks and a test can move time instead of sleeping.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './support/server.js';
import { TestClock } from './support/clock.js';

const SERVER = path.join(import.meta.dirname, '..', 'server');
/** Readings of the system time: Date.now(), new Date() and Date() without an argument. */
const READS_TIME = /\bDate\.now\(\)|\bnew Date\(\s*\)|(?<!new\s+)\bDate\(\s*\)/;

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

describe('the clock', () => {
  it('reads the system time nowhere in server/ but server/clock.ts (no Date.now(), no new Date())', () => {
    const readers = sourcesUnder(SERVER)
      .filter((file) => path.relative(SERVER, file) !== 'clock.ts')
      .flatMap((file) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (READS_TIME.test(line) ? [`${path.relative(SERVER, file)}:${i + 1}: ${line}`] : [])),
      );
    expect(readers).toEqual([]);
  });

  it('finds the readings it looks for', () => {
    const reads = ['const t = Date.now();', 'at: new Date(),', 'String(Date())', 'new Date( )'];
    const others = ['new Date(at)', 'Date.parse(s)', 'clock.now()', 'performance.now()'];
    expect(reads.filter((line) => !READS_TIME.test(line))).toEqual([]);
    expect(others.filter((line) => READS_TIME.test(line))).toEqual([]);
  });

  it('belongs to the app instance: two servers in one process record the times of their own clocks', async () => {
    const ahead = new TestClock();
    ahead.set('2031-01-01T00:00:00.000Z');
    const [early, late] = await Promise.all([
      startTestServer('sqlite'),
      startTestServer('sqlite', {}, { clock: ahead }),
    ]);
    try {
      const now = Date.now();
      const created = await Promise.all([early, late].map((t) => t.server.services.accounts.createAccount('clock')));
      const [onSystem, onTest] = created.map(({ account }) => Date.parse(account.date_created));
      expect(Math.abs(onSystem - now)).toBeLessThan(60_000);
      expect(onTest).toBeGreaterThanOrEqual(Date.parse('2031-01-01T00:00:00.000Z'));
      expect(onTest).toBeLessThan(Date.parse('2031-01-01T00:01:00.000Z'));
      // Sids are time-ordered by the same clock.
      expect(created[1].account.sid.slice(2, 14)).toBe(onTest.toString(16).padStart(12, '0'));
    } finally {
      await Promise.all([early.stop(), late.stop()]);
    }
  });
});
