// A graceful stop of the HTTP server: no new connections, every request in flight answered, then the sockets closed.
import type { Server, ServerResponse } from 'node:http';

/** How often connections that became idle (their last response sent) are looked for while draining. */
const IDLE_SWEEP_MS = 25;

/**
 * Tracks the server's responses in flight, and returns the function that drains it: stops accepting, lets the
 * requests in flight end for `graceMs` at most (their connections are closed after their response, not kept alive),
 * then closes every connection left. With `graceMs` 0 it cuts them at once.
 */
export function drainable(server: Server): (graceMs: number) => Promise<void> {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('request', (_req, res: ServerResponse) => {
    // A request that arrived on a kept-alive connection as the drain began is served; its connection then closes.
    if (draining) closeAfter(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return async (graceMs) => {
    draining = true;
    for (const res of inFlight) closeAfter(res);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    if (graceMs > 0) {
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearInterval(sweep);
      clearTimeout(timer);
    }
    server.closeAllConnections();
    await closed;
  };
}
