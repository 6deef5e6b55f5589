// Sends webhook attempts from a worker thread, so the HTTP work (connections, writing the request, reading the
// answer) and the signing are off the thread that runs the API and the database. The delivery engine keeps
// everything durable on its side: an attempt the thread never answers (it stopped) counts as a failed attempt.
import { HelperThread } from '../threads.js';
import { failedAttempt, type AttemptResult, type DeliverOptions } from './deliver.js';

export interface SendRequest {
  seq: number;
  url: string;
  body: string;
  /** Signing happens in the thread: the account's secrets (the current one first) and the event's webhook-id. */
  secrets: readonly string[];
  webhookId: string;
  /** When the attempt is made (ms, by the app's clock, which the thread has not): the webhook-timestamp. */
  timestamp: number;
  options: DeliverOptions;
}

export class WebhookSender {
  private readonly thread = new HelperThread<{ seq: number; result: AttemptResult }[]>(
    import.meta.url,
    'sender-thread',
    'webhook sender',
    (answers) => {
      for (const { seq, result } of answers) {
        const resolve = this.waiting.get(seq);
        this.waiting.delete(seq);
        resolve?.(result);
      }
    },
    (why) => this.failWaiting(why),
  );
  private readonly waiting = new Map<number, (result: AttemptResult) => void>();
  private outbox: SendRequest[] = [];
  private seq = 0;
  private closed = false;

  send(request: Omit<SendRequest, 'seq'>): Promise<AttemptResult> {
    if (this.closed) return Promise.resolve(failedAttempt('the webhook sender is closed'));
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(seq, resolve);
      if (this.outbox.length === 0) setImmediate(() => this.flush());
      this.outbox.push({ ...request, seq });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.thread.close();
    this.failWaiting('the webhook sender is closed');
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length) this.thread.post(batch);
  }

  /** Answers every attempt in flight as a failed one; the delivery engine retries them. */
  private failWaiting(why: string): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolve of waiting) resolve(failedAttempt(why));
  }
}
