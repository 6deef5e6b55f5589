// Runs Prism (mock or validating proxy) from node_modules on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadSpec } from '../../server/http/spec.js';
import { ROOT } from './run.js';

export interface Prism {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function run(args: string[], port?: number): Promise<Prism> {
  port ??= await freePort();
  const child: ChildProcess = spawn(
    path.join(ROOT, 'node_modules/.bin/prism'),
    [...args, '-h', '127.0.0.1', '-p', String(port)],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NODE_ENV: 'test' },
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${out}`)), 30_000);
    const check = () => {
      if (/Prism is listening/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`prism exited with ${code}:\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The spec without its callbacks, for the mock: Prism's mock POSTs every callback of an operation to the URL in the
 * request (`status_callback: https://app.example.com/...`), and tests talk to loopback only.
 */
function specWithoutCallbacks(): string {
  const document = structuredClone(loadSpec().document);
  for (const item of Object.values<Record<string, { callbacks?: unknown }>>(document.paths)) {
    for (const op of Object.values(item)) delete op.callbacks;
  }
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-mock-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(document));
  return file;
}

export const startPrismMock = () => run(['mock', specWithoutCallbacks()]);
export const startPrismProxyOn = (port: number, upstream: string) =>
  run(['proxy', 'spec/openapi.yaml', upstream, '--errors'], port);
