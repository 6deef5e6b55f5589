// Sends the fuzz suite's requests over node:http, which puts a raw request target on the wire as given (fetch would
// normalise `..` and percent-encodings away), a few at a time.
import http from 'node:http';
import type { FuzzRequest } from './requests.js';

export interface FuzzResponse {
  status: number;
  contentType: string;
  body: string;
}

const MAX_BODY = 64 * 1024;

export function sender(baseUrl: string, concurrency: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

  function send(request: FuzzRequest): Promise<FuzzResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body) headers['content-length'] = request.body.length;
      const req = http.request(
        { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < MAX_BODY) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.setTimeout(20_000, () => req.destroy(new Error('no answer within 20 s')));
      req.on('error', reject);
      req.end(request.body);
    });
  }

  /** Sends every request, `concurrency` at a time, and gives each answer (or the error) in the requests' order. */
  async function sendAll(requests: FuzzRequest[]): Promise<(FuzzResponse | Error)[]> {
    const answers: (FuzzResponse | Error)[] = new Array(requests.length);
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const i = next++;
        answers[i] = await send(requests[i]).catch((err: Error) => err);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return answers;
  }

  return { sendAll, close: () => agent.destroy() };
}
