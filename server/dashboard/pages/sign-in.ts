// Sign-in with an API key (exchanged for a session cookie), and sign-out.
import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { render } from '../render.js';
import { type DashboardContext, forbiddenPage, sessionOf } from '../context.js';
import {
  CSRF_FIELD,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  clearCookie,
  cookies,
  secureCookies,
  setCookie,
  tokensMatch,
} from '../security.js';

/** Routes that need no session: the sign-in form and its post. */
export function mountSignIn(router: Router, ctx: DashboardContext): void {
  const secure = (req: Request) => secureCookies(req, ctx.services.config.publicUrl);
  const idleMinutes = ctx.services.config.dashboardIdleMinutes;

  const form = (req: Request, res: Response, status = 200, error?: string) => {
    // The form's own CSRF token, echoed by a cookie (there is no session yet to tie it to).
    const signInToken = randomBytes(24).toString('base64url');
    setCookie(res, SIGN_IN_COOKIE, signInToken, secure(req));
    render(res, 'sign-in', { title: 'Sign in', nav: 'none', signInToken, idleMinutes, error }, status);
  };

  router.get('/sign-in', (req, res) => form(req, res));

  router.post('/sign-in', async (req, res) => {
    if (!tokensMatch(req.body?.[CSRF_FIELD], cookies(req).get(SIGN_IN_COOKIE) ?? '')) return forbiddenPage(res);
    const apiKey = typeof req.body.api_key === 'string' ? req.body.api_key.trim() : '';
    const token = apiKey ? await ctx.sessions.open(apiKey) : null;
    if (!token) return form(req, res, 401, 'That API key is not valid (unknown or revoked).');
    clearCookie(res, SIGN_IN_COOKIE, secure(req));
    setCookie(res, SESSION_COOKIE, token, secure(req));
    res.redirect(303, '/dashboard');
  });
}

/** Sign-out (behind the session and its CSRF check, like every other form). */
export function mountSignOut(router: Router, ctx: DashboardContext): void {
  router.post('/sign-out', async (req, res) => {
    await ctx.sessions.close(sessionOf(res).tokenHash);
    clearCookie(res, SESSION_COOKIE, secureCookies(req, ctx.services.config.publicUrl));
    res.redirect(303, '/dashboard/sign-in');
  });
}
