// A real webhook receiver on 127.0.0.1 for tests: records every request and answers as the test says.
import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

interface Answer {
  status: number;
  /** Bytes for an answer in another charset than UTF-8. */
  body?: string | Buffer;
  contentType?: string;
  /** More response headers (a redirect's Location). */
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Requests answered 2xx (accepted deliveries). */
  received: ReceivedWebhook[];
  /** Every request, whatever it was answered. */
  all: ReceivedWebhook[];
  /** Decides each answer; 200 with no body by default. */
  answer: (request: ReceivedWebhook) => Answer;
  waitFor(check: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<WebhookReceiver> {
  const self: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    all: [],
    answer: () => ({ status: 200 }),
    async waitFor(check, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!check(self.received)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for webhooks; received ${self.received.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(body);
      } catch {
        // not JSON
      }
      const request: ReceivedWebhook = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers as Record<string, string>,
        body,
        json,
        at: Date.now(),
      };
      self.all.push(request);
      const answer = self.answer(request);
      const send = () => {
        if (answer.status >= 200 && answer.status < 300) self.received.push(request);
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  self.port = (server.address() as AddressInfo).port;
  self.url = `http://127.0.0.1:${self.port}`;
  return self;
}

/** A receiver for the whole test file: started before its tests, closed after them. */
export function useReceiver(): WebhookReceiver {
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());
  const running = () => {
    if (!receiver) throw new Error('the receiver is not running yet (use it inside hooks and tests)');
    return receiver;
  };
  return new Proxy({} as WebhookReceiver, {
    get: (_, key) => Reflect.get(running(), key),
    set: (_, key, value) => Reflect.set(running(), key, value),
  });
}
