// Shared by the tests of HTTP handling: the exact problem a response must be, and raw HTTP/1.1 on a loopback socket.
import net from 'node:net';
import { expect } from 'vitest';

/** Asserts a problem+json response with this status and code, and returns its body. */
export async function expectProblem(res: Response, status: number, code: string): Promise<any> {
  expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({
    status,
    type: expect.stringMatching(/^application\/problem\+json/),
  });
  const body: any = await res.json();
  expect(body).toMatchObject({ status, code, type: `/problems/${code}`, request_id: res.headers.get('x-request-id') });
  return body;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseRaw(text: string): RawResponse {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/**
 * Opens a loopback connection to `baseUrl`, writes `chunks` (strings or bytes; `end` half-closes after them) and
 * resolves with the first response once the server has sent it whole (or closed the connection).
 */
export async function rawRequest(
  baseUrl: string,
  chunks: (string | Buffer)[],
  { end = false }: { end?: boolean } = {},
): Promise<RawResponse & { closed: boolean }> {
  const { port, hostname } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  try {
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    for (const chunk of chunks) socket.write(chunk);
    if (end) socket.end();
    return await new Promise((resolve, reject) => {
      let received = Buffer.alloc(0);
      const complete = () => {
        const text = received.toString('utf8');
        const split = text.indexOf('\r\n\r\n');
        if (split < 0) return null;
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, split));
        return length && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1]) ? parseRaw(text) : null;
      };
      socket.on('data', (data: Buffer) => {
        received = Buffer.concat([received, data]);
        const response = complete();
        if (response) resolve({ ...response, closed: false });
      });
      socket.once('close', () => resolve({ ...parseRaw(received.toString('utf8')), closed: true }));
      socket.once('error', reject);
    });
  } finally {
    socket.destroy();
  }
}
