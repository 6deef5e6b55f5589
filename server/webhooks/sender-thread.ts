// The webhook sender's thread: signs and POSTs what the main thread hands it, and answers with the outcomes.
// Requests and answers travel in batches, one message per turn of either event loop.
import { parentPort } from 'node:worker_threads';
import { failedAttempt, postWebhook, type AttemptResult } from './deliver.js';
import { signedHeaders } from './sign.js';
import type { SendRequest } from './sender.js';

const port = parentPort!;
let answers: { seq: number; result: AttemptResult }[] = [];

function answer(seq: number, result: AttemptResult): void {
  if (answers.length === 0) setImmediate(flush);
  answers.push({ seq, result });
}

function flush(): void {
  const batch = answers;
  answers = [];
  port.postMessage(batch);
}

port.on('message', (batch: SendRequest[]) => {
  for (const r of batch) {
    postWebhook(r.url, r.body, signedHeaders(r.secrets, r.webhookId, r.body, r.timestamp), r.options).then(
      (result) => answer(r.seq, result),
      (err: Error) => answer(r.seq, failedAttempt(err.message)),
    );
  }
});
