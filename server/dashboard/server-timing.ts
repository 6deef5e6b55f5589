// `Server-Timing: app;dur=<ms>` on every dashboard answer: the time from the request reaching the dashboard to its
// headers being written (the session check and the page's queries and rendering), which `npm run bench -- dashboard`
// reads as the server's time per page.
import type { NextFunction, Request, Response } from 'express';

export function serverTiming(_req: Request, res: Response, next: NextFunction): void {
  const started = performance.now();
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((...args: unknown[]) => {
    if (!res.headersSent) res.setHeader('Server-Timing', `app;dur=${(performance.now() - started).toFixed(2)}`);
    return writeHead(...args);
  }) as Response['writeHead'];
  next();
}
