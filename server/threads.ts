// Worker threads of the server run the module beside their caller: compiled JavaScript when the server runs from
// dist/ (`npm start`), TypeScript through tsx in development and tests. A worker does not inherit the main thread's
// loader, so under tsx it registers tsx before importing its module.
import { Worker, type TransferListItem, type WorkerOptions } from 'node:worker_threads';

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

/**
 * A thread of the server that works for its main thread (the webhook sender, the recordings' renderer): started on
 * the first message posted to it, and again after it failed or exited, when its owner (`lost`) has failed whatever
 * it was waiting for. It never holds the process open by itself: the work waiting for it (jobs) does.
 */
export class HelperThread<Answer> {
  private worker: Worker | null = null;

  constructor(
    /** The owner's `import.meta.url`: the thread's module is beside it (startThread). */
    private readonly from: string,
    /** The module's name, and what a failure calls the thread. */
    private readonly module: string,
    private readonly label: string,
    private readonly answered: (answer: Answer) => void,
    private readonly lost: (why: string) => void,
  ) {}

  post(message: unknown, transfer?: readonly TransferListItem[]): void {
    this.thread().postMessage(message, transfer);
  }

  /** Stops the thread (its next post starts another); what it was doing is not answered. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startThread(this.from, this.module, { name: this.label.replaceAll(' ', '-') });
    worker.unref();
    worker.on('message', (answer: Answer) => this.answered(answer));
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.lost(why);
    };
    worker.on('error', (err) => lost(`the ${this.label} thread failed: ${err.message}`));
    worker.on('exit', (code) => lost(`the ${this.label} thread exited (${code})`));
    this.worker = worker;
    return worker;
  }
}
