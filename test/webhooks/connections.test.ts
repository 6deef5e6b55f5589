// The sender's kept-alive connections to a receiver are closed here before the receiver would close them, so that a
// webhook is seldom written on a connection the receiver is closing at that moment (which fails it at once, and is
// sent again on a new connection). Only loopback is reached.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook } from '../../server/webhooks/deliver.js';

/** A receiver answering 200 (after `answerAfterMs` for every request but the first), counting the connections it
 * was given, that keeps an idle one `keepAliveMs` (and says so in `Keep-Alive: timeout=`), or for good without saying
 * (0). */
async function receiver(keepAliveMs: number, answerAfterMs = 0) {
  let connections = 0;
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    const wait = requests++ === 0 ? 0 : answerAfterMs;
    req.on('end', () => setTimeout(() => res.end('ok'), wait));
  });
  server.keepAliveTimeout = keepAliveMs;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    post: (timeoutMs = 5000) => postWebhook(url, '{}', {}, { timeoutMs, privateAddresses: 'loopback' }),
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => server.close(() => resolve())).finally(() => server.closeAllConnections()),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kept-alive connections to a receiver', () => {
  const receivers: Awaited<ReturnType<typeof receiver>>[] = [];
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  const start = async (keepAliveMs: number, answerAfterMs = 0) => {
    const r = await receiver(keepAliveMs, answerAfterMs);
    receivers.push(r);
    return r;
  };

  it('reuses a connection between webhooks sent close together', async () => {
    const r = await start(5000);
    expect((await r.post()).ok).toBe(true);
    expect((await r.post()).ok).toBe(true);
    expect(r.connections()).toBe(1);
  });

  it("closes an idle connection a second before the receiver's Keep-Alive timeout would", async () => {
    // The receiver says timeout=3 and would close it at 3 s; closed here at 2 s, the next webhook gets a new one.
    const r = await start(3000);
    expect((await r.post()).ok).toBe(true);
    await pause(2400);
    expect((await r.post()).ok).toBe(true);
    expect(r.connections()).toBe(2);
  });

  it('closes an idle connection after 4 s when the receiver says nothing of its timeout', async () => {
    const r = await start(0);
    expect((await r.post()).ok).toBe(true);
    await pause(4400);
    expect((await r.post()).ok).toBe(true);
    expect(r.connections()).toBe(2);
  });

  it('gives a request on a kept connection its whole timeout, not the idle one', async () => {
    // Idle connections close after 2 s here (timeout=3); the second webhook's answer takes 4.5 s, within its 5 s.
    const r = await start(3000, 4500);
    expect((await r.post()).ok).toBe(true);
    expect(await r.post()).toMatchObject({ ok: true, status: 200 });
    expect(r.connections()).toBe(1);
  });

  it('gives it its whole timeout when that is the idle timeout itself (4 s)', async () => {
    // timeout=2: idle connections close after 1 s here; the second answer takes 1.5 s, within its 4 s.
    const r = await start(2000, 1500);
    expect((await r.post(4000)).ok).toBe(true);
    expect(await r.post(4000)).toMatchObject({ ok: true, status: 200 });
    expect(r.connections()).toBe(1);
  });
});
