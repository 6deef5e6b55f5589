// Runs one of the project's commands as a user would, with a chosen environment, and collects its output.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [script, ...args], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
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

/** Starts the server as `npm start` would, in its own process group so a kill of the group reaches tsx's child too. */
export function startServerProcess(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(TSX, ['server/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    detached: true,
    stdio: 'ignore',
  });
}

/** Kills a server started by startServerProcess with SIGKILL (its whole group) and waits until it has exited. */
export function killServerProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}
