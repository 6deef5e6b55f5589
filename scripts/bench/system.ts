// Bench scenario of the compiled build's cold start: `npm start` (scripts/start.mjs) until /readyz answers 200, the
// median of five starts, beside the time a bare `node -e` takes to start and exit, measured in the same run.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Scenario } from './scenarios.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STARTS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** How long `node -e` takes to start and exit (ms). */
function bareNode(): number {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - started;
}

/** CPU time (user and system) the process has used so far, in ms; null where /proc does not tell. */
function cpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Starts the compiled server on DATA_DIR `dataDir` and a free port: ms until /readyz answered 200, and its CPU ms. */
async function coldStart(dataDir: string): Promise<{ ms: number; cpu: number | null }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', TELEPHONY_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /listening on (http:\/\/\S+?)"/.exec(out);
        if (found) resolve(found[1]);
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)));
    });
    for (;;) {
      const ready = await fetch(`${url}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ready) return { ms: performance.now() - started, cpu: cpuMs(child.pid!) };
      if (performance.now() - started > 120_000) throw new Error('/readyz did not answer 200 within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

export const systemScenarios: Scenario[] = [
  {
    name: 'system-cold-start',
    async run() {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
      try {
        // Not counted: builds dist/ when it is missing or stale, and warms the file cache.
        await coldStart(path.join(dataDir, 'warm-up'));
        const node = Array.from({ length: STARTS }, bareNode);
        const fresh: { ms: number; cpu: number | null }[] = [];
        const again: { ms: number; cpu: number | null }[] = [];
        for (let n = 0; n < STARTS; n++) {
          fresh.push(await coldStart(path.join(dataDir, `fresh-${n}`)));
          again.push(await coldStart(path.join(dataDir, 'fresh-0')));
        }
        const list = (values: number[]) =>
          `${median(values).toFixed(0)} ms (${values.map((v) => v.toFixed(0)).join(', ')})`;
        const starts = (runs: { ms: number; cpu: number | null }[]) => {
          const cpu = runs.map((r) => r.cpu).filter((c): c is number => c !== null);
          return `${list(runs.map((r) => r.ms))}${cpu.length ? `; CPU ${list(cpu)}` : ''}`;
        };
        return [
          '',
          `cold start, median of ${STARTS}, load average ${os
            .loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')}:`,
          `- \`node -e 0\` (start and exit): ${list(node)}`,
          `- \`npm start\` (compiled) to /readyz 200, new database: ${starts(fresh)}`,
          `- \`npm start\` (compiled) to /readyz 200, existing database: ${starts(again)}`,
        ];
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  },
];
