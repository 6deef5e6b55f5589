// Worker threads of the server run TypeScript modules through tsx, as the server itself does: a worker does not
// inherit the main thread's loader, so it registers tsx before importing its module.
import { Worker, type WorkerOptions } from 'node:worker_threads';

const TSX_API = JSON.stringify(import.meta.resolve('tsx/esm/api'));

/** Starts a thread on the TypeScript module at `entry`, a file URL such as
 * `new URL('./x-thread.ts', import.meta.url)`. */
export function startThread(entry: URL, options: Omit<WorkerOptions, 'eval'> & { name: string }): Worker {
  const boot = `import(${TSX_API}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
