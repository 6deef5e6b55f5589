// Runs one of the project's commands as a user would, with a chosen environment, and collects its output.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
// tsx's loader in the one node process, not tsx's command: the command starts a second node process under it, which
// doubles the start (about a second of the machine's time for each script a test runs).
const TSX = ['--import', 'tsx'];

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX, script, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts the server from its TypeScript, in its own process group, so that a kill of the group reaches every process
 * it started. */
export function startServerProcess(env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [...TSX, 'server/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (data: Buffer) => (tail = (tail + data.toString()).slice(-TAIL_CHARS));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  tails.set(child, () => tail);
  return child;
}

/** How much of its output a server started by startServerProcess keeps, for a test that must say why it failed. */
const TAIL_CHARS = 4000;
const tails = new WeakMap<ChildProcess, () => string>();

/** How a server started by startServerProcess is doing (running, or how it ended) and the last of its output. */
export function serverReport(child: ChildProcess): string {
  const state = child.exitCode !== null ? `exited ${child.exitCode}` : (child.signalCode ?? 'running');
  return `${state}; its last output:\n${tails.get(child)?.() ?? ''}`;
}

/** Kills a server started by startServerProcess with SIGKILL (its whole group) and waits until it has exited. */
export function killServerProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}

export interface ServerProcess {
  child: ChildProcess;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  /** Its end: the exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the server in one node process: a `.ts` entry through tsx's loader (not tsx's command, which would stand
 * between a signal and the server), a `.js` or `.mjs` one (the compiled build) as it is.
 */
export function spawnServer(env: NodeJS.ProcessEnv, entry = 'server/main.ts'): ServerProcess {
  const args = entry.endsWith('.ts') ? [...TSX, entry] : [entry];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}
