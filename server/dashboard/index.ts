// The dashboard under /dashboard: server-rendered pages (Eta) with plain forms, outside /v1 (no OpenAPI validator,
// no API key per request): its own sign-in, session cookie and CSRF check. To add a page: write a module under
// pages/ exporting `mountX(router, ctx)` that renders with `render` (render.ts), and mount it below.
import path from 'node:path';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../services.js';
import { ApiError } from '../errors.js';
import { DashboardSessions } from './sessions.js';
import { render, type DashboardLocals } from './render.js';
import { type DashboardContext, badRequestPage, forbiddenPage, notFoundPage } from './context.js';
import { CSRF_FIELD, SESSION_COOKIE, cookies, refuseNul, securityHeaders, tokensMatch } from './security.js';
import { mountSignIn, mountSignOut } from './pages/sign-in.js';
import { mountAddresses } from './pages/addresses.js';
import { mountNumbers } from './pages/numbers.js';
import { mountApiKeys } from './pages/api-keys.js';
import { serverTiming } from './server-timing.js';
import { mountLogs } from './pages/logs.js';
import { mountWebhookSecret } from './pages/webhook-secret.js';
import { mountSandbox } from './pages/sandbox.js';

const CSS = path.join(import.meta.dirname, 'assets', 'dashboard.css');

export function mountDashboard(app: Express, services: Services): void {
  const { config } = services;
  const sessions = new DashboardSessions(
    services.store,
    services.accounts,
    config.dashboardIdleMinutes,
    services.secretKey,
  );
  const ctx: DashboardContext = { services, sessions };
  const router = express.Router();

  router.use(serverTiming);
  router.use(securityHeaders);
  router.use(refuseNul);
  router.use((_req, res, next) => {
    (res.locals as DashboardLocals).sandbox = config.carrier === 'sandbox';
    next();
  });
  router.get('/assets/dashboard.css', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300');
    res.sendFile(CSS);
  });
  mountSignIn(router, ctx);

  // Every other page needs a live session; a body is read only then, and every POST must carry the CSRF token.
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    const token = cookies(req).get(SESSION_COOKIE);
    const session = token ? await sessions.resume(token) : null;
    if (!session) return res.redirect(303, '/dashboard/sign-in');
    (res.locals as DashboardLocals).session = session;
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 }));
  router.use((req: Request, res: Response, next: NextFunction) => {
    const { csrf } = (res.locals as DashboardLocals).session!;
    if (req.method === 'POST' && !tokensMatch(req.body?.[CSRF_FIELD], csrf)) return forbiddenPage(res);
    next();
  });
  router.get('/', (_req, res) => res.redirect(303, '/dashboard/logs/messages'));
  mountSignOut(router, ctx);
  mountAddresses(router, ctx);
  mountNumbers(router, ctx);
  mountApiKeys(router, ctx);
  mountLogs(router, ctx);
  mountWebhookSecret(router, ctx);
  mountSandbox(router, ctx);

  router.use((_req: Request, res: Response) => notFoundPage(res));
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ApiError && err.status === 404) return notFoundPage(res);
    const status = (err as { status?: unknown })?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) return badRequestPage(res, status);
    req.log.error({ err }, 'dashboard page failed');
    render(res, 'error', { title: 'Something went wrong', nav: 'none', message: 'The page could not be shown.' }, 500);
  });
  app.use('/dashboard', router);
}
