// The HTTP server of an Express app, whose requests and responses are made with the app's own prototypes.
//
// Express gives each request and response its app's prototypes (`app.request`, `app.response`) with
// Object.setPrototypeOf as it enters the app. V8 gives an object whose prototype was changed maps of its own for every
// property added after: no two requests then share a map, each property read on `req` or `res` misses V8's inline
// caches and goes to the runtime, and the maps are garbage after each request. Under callgrind that was about 146
// cache misses and a fifth of the main thread's instructions per `POST /v1/messages`. Node's server makes its
// requests and responses with classes it is given: made with the app's prototypes from the start, Express's
// setPrototypeOf finds the prototype already in place and changes nothing (expressjs/express#5998).
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';

/**
 * A constructor of `base`'s instances whose prototype is `prototype`. The base constructor is called on the new
 * object (`this`), as ES5 constructors are: `Reflect.construct` with another `new.target` would work for classes
 * too, but V8 then derives a new map for every object made, which is what this module avoids.
 */
function madeWith<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, prototype: object): T {
  const made = function (this: unknown, ...args: unknown[]) {
    (base as unknown as (...a: unknown[]) => void).apply(this, args);
  };
  made.prototype = prototype;
  return made as unknown as T;
}

/** A server for `app`, not yet listening. */
export function httpServerFor(app: Express): Server {
  return http.createServer(
    {
      IncomingMessage: madeWith(http.IncomingMessage, app.request),
      ServerResponse: madeWith(http.ServerResponse, app.response),
    },
    app,
  );
}

/** Listens on `host:port`; rejects with the listen error (a busy port, an address this machine does not have). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
