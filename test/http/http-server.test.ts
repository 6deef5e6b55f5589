// The server's requests and responses are made with the app's prototypes, so that V8 can share their maps.
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { httpServerFor, listen } from '../../server/http/http-server.js';
import { startTestServer } from '../support/server.js';
import type { Server } from 'node:http';

const run = promisify(execFile);
const module = path.resolve(import.meta.dirname, '../../server/http/http-server.ts');

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe('httpServerFor', () => {
  it("makes each request and response with the app's prototypes before the app sees them", async () => {
    const app = express();
    app.use(express.json());
    app.post('/echo', (req, res) => void res.status(201).json({ received: req.body as unknown, app: req.app === app }));
    server = httpServerFor(app);
    const seen: boolean[] = [];
    server.prependListener('request', (req, res) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
    });
    await listen(server, 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ received: { a: 1 }, app: true });
    expect(seen).toEqual([true, true]);
  });

  it("is the server start() listens with: the API's requests arrive with the app's prototype", async () => {
    const api = await startTestServer('sqlite');
    try {
      const prototypes: unknown[] = [];
      api.server.http.prependListener('request', (req) => prototypes.push(Object.getPrototypeOf(req)));
      expect((await fetch(`${api.directUrl}/healthz`)).status).toBe(200);
      expect(prototypes).toHaveLength(1);
      // The app's `app.request` (its own `app`, over Express's request), not Node's IncomingMessage.prototype.
      expect(Object.hasOwn(prototypes[0] as object, 'app')).toBe(true);
      expect(Object.getPrototypeOf(prototypes[0])).toBe(express.request);
    } finally {
      await api.stop();
    }
  });

  it('rejects with the listen error on a busy port', async () => {
    server = httpServerFor(express());
    await listen(server, 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const second = httpServerFor(express());
    await expect(listen(second, port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  // V8's own answer, in a process started with --allow-natives-syntax: two requests held at the same middleware have
  // the same map with httpServerFor, and maps of their own with Express's app.listen (the cost this module removes).
  it('gives two requests at the same point of the app one map, where app.listen gives each its own', async () => {
    const script = `
      import express from 'express';
      import http from 'node:http';
      import { httpServerFor, listen } from ${JSON.stringify(module)};
      const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
      async function held(make) {
        const app = express();
        app.use(express.json());
        const waiting = [];
        const results = [];
        app.use((req, res, next) => {
          waiting.push([req, res, next]);
          if (waiting.length < 2) return;
          const [[req1, res1, next1], [req2, res2, next2]] = waiting.splice(0);
          results.push(sameMap(req1, req2), sameMap(res1, res2));
          next1();
          next2();
        });
        app.post('/', (req, res) => void res.status(201).json(req.body));
        const server = make(app);
        await listen(server, 0, '127.0.0.1');
        const url = 'http://127.0.0.1:' + server.address().port + '/';
        const one = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
          .then((r) => r.text());
        for (let i = 0; i < 20; i++) await Promise.all([one(), one()]);
        server.close();
        return results.slice(-10);
      }
      const ours = await held(httpServerFor);
      const express5 = await held((app) => http.createServer(app));
      console.log(JSON.stringify({ ours, express5 }));
    `;
    const { stdout } = await run(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: path.resolve(import.meta.dirname, '../..'), timeout: 30_000 },
    );
    const { ours, express5 } = JSON.parse(stdout) as { ours: boolean[]; express5: boolean[] };
    expect(ours).toEqual(Array(10).fill(true));
    expect(express5).toEqual(Array(10).fill(false));
  });
});
