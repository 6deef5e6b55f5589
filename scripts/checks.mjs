// The static checks `npm test` runs before the tests, two at a time (the machines here have two cores and each check
// runs on one): the longest first, so that the two lanes end together. Each check's output is printed whole when it
// ends; every check runs even when one fails, and the exit code is 1 if any did.
import { spawn } from 'node:child_process';

/** npm scripts, longest first (seconds on a quiet machine, 2026-11-26: 30, 15, 11, 3, 2, 1, 1). */
const CHECKS = ['lint', 'typecheck', 'format:check', 'knip', 'check:drift', 'lint:spec', 'lint:lines'];
const LANES = 2;

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs one npm script, its stdout and stderr collected together. */
function run(script) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error) => resolve({ script, code: 1, output: `${output}${error.message}\n`, started }));
    child.on('close', (code) => resolve({ script, code, output, started }));
  });
}

const queue = [...CHECKS];
const failed = [];
async function lane() {
  for (let script = queue.shift(); script; script = queue.shift()) {
    const { code, output, started } = await run(script);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(`\n> ${script}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s\n`);
    if (output.trim()) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    if (code !== 0) failed.push(script);
  }
}
await Promise.all(Array.from({ length: LANES }, lane));
if (failed.length) {
  console.error(`\nstatic checks failed: ${failed.join(', ')}`);
  process.exit(1);
}
