// A client's mistake is logged at info at most (its request line); error level is kept for the server's own faults.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type RunningServer } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { dropPostgresSchema } from '../../server/store/db.js';
import { ENGINES, testEnv } from '../support/server.js';
import { rawRequest } from '../support/raw-http.js';
import { waitUntil } from '../support/wait.js';

interface LogLine {
  level: number;
  msg: string;
  status?: number;
  request_id?: string;
  path?: string;
}

describe.each(ENGINES)('log levels of refused requests (%s)', (engine) => {
  const lines: LogLine[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-test-'));
  const config = loadConfig(testEnv(engine, dataDir));
  let server: RunningServer;
  let apiKey: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    server = await start(config, { logger: pino({ level: 'info' }, sink) });
    apiKey = (await server.services.accounts.createAccount('logs')).key.api_key;
  });
  afterAll(async () => {
    await server.close();
    if (config.databaseSchema) await dropPostgresSchema(config.databaseUrl!, config.databaseSchema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs bad bodies, missing keys and malformed requests at info, never at warn or error', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const truncated =
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\n` +
      'Content-Type: application/json\r\n';
    const statuses = [
      (await post({ authorization: `Bearer ${apiKey}`, 'content-encoding': 'gzip' }, 'not gzip')).status,
      (await post({ authorization: `Bearer ${apiKey}` }, '{"to": ')).status,
      (await post({ 'content-encoding': 'gzip' }, 'not gzip')).status,
      (await rawRequest(server.url, ['GET\r\n\r\n'])).status,
      (await rawRequest(server.url, [`${truncated}Content-Length: 100\r\n\r\n{"to": "+1`], { end: true })).status,
    ];
    expect(statuses).toEqual([400, 400, 401, 400, 400]);
    // The request lines are written when the responses finish, which the clients may see first.
    // One line per request (the truncated one may be logged both by Express and by the HTTP parser's handler).
    const refused = await waitUntil(
      async () => {
        const found = lines.filter((line) => line.status !== undefined && line.status >= 400);
        return found.length >= statuses.length && found;
      },
      5000,
      'a line for each refused request',
    );
    expect(refused.filter((line) => line.level !== pino.levels.values.info)).toEqual([]);
    expect(lines.filter((line) => line.level > pino.levels.values.info)).toEqual([]);
  });

  it("writes each request's line through its own logger, bound to its request id", async () => {
    const res = await fetch(`${server.url}/v1/account`, {
      headers: { authorization: `Bearer ${apiKey}`, 'x-request-id': 'log-levels-own-id' },
    });
    expect(res.status).toBe(200);
    const line = await waitUntil(
      async () => lines.find((l) => l.request_id === 'log-levels-own-id'),
      5000,
      'the request line',
    );
    expect(line).toMatchObject({ level: pino.levels.values.info, msg: 'request', path: '/v1/account', status: 200 });
  });

  // Last: it writes the one error line of this file. Without a listener, the emit below would throw.
  it('logs an error of the listening server (an accept that failed) at error, and goes on answering', async () => {
    server.http.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' }));
    const line = lines.find((l) => l.msg === 'the HTTP server could not accept a connection');
    expect(line?.level).toBe(pino.levels.values.error);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
