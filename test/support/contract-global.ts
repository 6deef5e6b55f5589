// vitest globalSetup: ONE `prism proxy --errors` for the whole run. Prism proxies to one upstream, so its upstream is a
// loopback router that forwards each request to the test server named by its `x-test-server-port` header.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { freePort, startPrismProxyOn, type Prism } from './prism.js';

export const SERVER_PORT_HEADER = 'x-test-server-port';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's Prism proxy; it may still be starting (see waitForContractProxy). */
    prismUrl: string;
  }
}

/**
 * Prism's log lines that report one of our responses breaking the spec. Requests Prism refuses itself (no key, a
 * malformed body) are the tests' business, and each test sees that answer.
 */
export function prismViolations(output: string): string[] {
  return output.split('\n').filter((line) => /errors#VIOLATIONS|violation.*response/i.test(line));
}

function startRouter(): Promise<http.Server> {
  const router = http.createServer((req, res) => {
    const port = Number(req.headers[SERVER_PORT_HEADER]);
    if (!Number.isInteger(port) || port <= 0) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`the router needs a ${SERVER_PORT_HEADER} header`);
      return;
    }
    const headers = { ...req.headers, host: `127.0.0.1:${port}` };
    const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', (error) => res.destroy(error));
    req.pipe(upstream);
  });
  return new Promise((resolve) => router.listen(0, '127.0.0.1', () => resolve(router)));
}

export default async function setup(project: TestProject) {
  const router = await startRouter();
  const port = await freePort();
  // Not awaited: Prism takes seconds to start, and the files that need it wait for it themselves.
  const upstream = `http://127.0.0.1:${(router.address() as AddressInfo).port}`;
  const starting: Promise<Prism> = startPrismProxyOn(port, upstream);
  starting.catch(() => {});
  project.provide('prismUrl', `http://127.0.0.1:${port}`);

  return async () => {
    const prism = await starting.catch(() => null);
    await prism?.stop();
    await new Promise((resolve) => router.close(resolve));
    // --errors turns a violating response into a 500 that its test sees; this also fails the run on warnings.
    const violations = prismViolations(prism?.output() ?? '');
    if (violations.length > 0) throw new Error(`prism proxy logged contract violations:\n${violations.join('\n')}`);
  };
}
