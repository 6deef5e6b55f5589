// A test server's door to the run's one Prism proxy: a loopback listener that names the server's port in a header
// (the globalSetup's router forwards on it) and records the violations Prism reports in `sl-violations`.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { SERVER_PORT_HEADER } from './contract-global.js';
import { waitUntil } from './wait.js';

export interface ContractDoor {
  url: string;
  /** Every violation Prism reported on this door's traffic so far. */
  violations(): string[];
  stop(): Promise<void>;
}

const PRISM_START_MS = 60_000;

/** Resolves once the run's Prism accepts connections (it starts in the background of the globalSetup). */
async function waitForContractProxy(prism: URL): Promise<void> {
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(Number(prism.port), prism.hostname, () => resolve(!!socket.end()));
      socket.on('error', () => resolve(false));
    });
  await waitUntil(accepts, PRISM_START_MS, `prism proxy at ${String(prism)} to start`);
}

export async function openContractDoor(serverPort: () => number): Promise<ContractDoor> {
  const prism = new URL(inject('prismUrl'));
  await waitForContractProxy(prism);
  const violations: string[] = [];
  const door = http.createServer((req, res) => {
    const headers = { ...req.headers, host: prism.host, [SERVER_PORT_HEADER]: String(serverPort()) };
    const options = { host: prism.hostname, port: prism.port, method: req.method, path: req.url, headers };
    const forward = http.request(options, (answer) => {
      const reported = answer.headers['sl-violations'];
      if (reported) violations.push(`${req.method} ${req.url}: ${[reported].flat().join(',')}`);
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    forward.on('error', (error) => res.destroy(error));
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(door.address() as AddressInfo).port}`,
    violations: () => [...violations],
    stop: () =>
      new Promise((resolve) => {
        door.closeAllConnections();
        door.close(() => resolve());
      }),
  };
}
