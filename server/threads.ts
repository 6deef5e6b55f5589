// Worker threads of the server run the module beside their caller: compiled JavaScript when the server runs from
// dist/ (`npm start`), TypeScript through tsx in development and tests. A worker does not inherit the main thread's
// loader, so under tsx it registers tsx before importing its module.
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a thread on the module named `name` (without extension) beside the module at `from` (its
 * `import.meta.url`): `name.js` when `from` is compiled, else `name.ts` through tsx.
 */
export function startThread(
  from: string,
  name: string,
  options: Omit<WorkerOptions, 'eval'> & { name: string },
): Worker {
  if (from.endsWith('.js')) return new Worker(new URL(`./${name}.js`, from), options);
  const entry = new URL(`./${name}.ts`, from);
  const tsxApi = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsxApi}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
