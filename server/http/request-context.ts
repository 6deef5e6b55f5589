// What the middleware chain adds to every request: its id, a logger bound to it, and the caller's account.
import { randomUUID } from 'node:crypto';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Account } from '../accounts/service.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      log: Logger;
      account?: Account;
    }
  }
}

const INBOUND_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * HTTP requests in flight (in every server of this process) from which the API counts as crowded. Under a load that
 * saturates it every client's request is in flight; at 1,000 requests per second it takes a 32 ms stall to gather
 * as many, so the short bursts of the job worker's own work do not make it yield to itself.
 */
export const CROWDED_REQUESTS = 32;
let inFlight = 0;
/** When requests in flight last reached CROWDED_REQUESTS (performance.now()). */
let crowdedAt = -Infinity;

/**
 * Whether the API was crowded at any moment of the last `ms`. Under a load that saturates it the count dips
 * between turns of the event loop (a group of answers goes out, the next requests are not read yet), so a look at
 * one moment often misses it; a crowd seen moments ago is the steadier sign.
 */
export function crowdedWithin(ms: number): boolean {
  return performance.now() - crowdedAt < ms;
}

/** The request's child logger once made (see `log` in requestContext). */
const childLog = Symbol('childLog');

/**
 * Takes a sane inbound X-Request-Id or makes one, echoes it, and logs each request once it ends. `req.log` is the
 * request's logger, made on first use: most requests never log anything but their closing line. It is an accessor
 * of the app's request prototype, defined once. Defined on each request instead (two new functions and a property
 * descriptor per request, as it was), it cost about an eighth of the CPU of a simple GET (docs/performance.md), far
 * more than the call itself. A likely cause, not shown: an accessor whose functions are new each time gives each
 * request a shape of its own in V8, which the code reading `req` after it pays for.
 */
export function requestContext(app: Express, logger: Logger) {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    enumerable: true,
    get(this: Request & { [childLog]?: Logger }): Logger {
      return (this[childLog] ??= logger.child({ request_id: this.id }));
    },
    set(this: Request & { [childLog]?: Logger }, value: Logger) {
      this[childLog] = value;
    },
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    const inbound = req.get('x-request-id');
    req.id = inbound && INBOUND_ID.test(inbound) ? inbound : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    if (++inFlight >= CROWDED_REQUESTS) crowdedAt = performance.now();
    res.once('close', () => inFlight--);
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    // As the client sent it: a HEAD is served as its GET (app.ts).
    const method = req.method;
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.info(
        {
          method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          account: req.account?.sid,
        },
        'request',
      );
    });
    next();
  };
}
