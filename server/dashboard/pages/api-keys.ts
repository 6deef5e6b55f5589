// Settings > API keys: the account's live keys (prefix and creation date, never the key), a new key shown once on
// the page that creates it, and revocation behind a confirmation page. Revoking the key this session signed in
// with ends the session (every session opened with a key ends with it).
import type { Router } from 'express';
import { render } from '../render.js';
import { type DashboardContext, flashAndRedirect, notFoundPage, sessionOf } from '../context.js';
import { SESSION_COOKIE, clearCookie, secureCookies } from '../security.js';

export function mountApiKeys(router: Router, ctx: DashboardContext): void {
  const { accounts } = ctx.services;

  router.get('/settings/api-keys', async (_req, res) => {
    const session = sessionOf(res);
    const keys = await accounts.listKeys(session.account.sid);
    render(res, 'api-keys/list', { title: 'API keys', nav: 'api-keys', keys, current: session.keySid });
  });

  router.post('/settings/api-keys', async (_req, res) => {
    const created = await accounts.createKey(sessionOf(res).account.sid);
    if (!created) throw new Error('the signed-in account is gone');
    // Shown on this page only (it is never stored): no redirect, and the page is not cached (Cache-Control no-store).
    render(res, 'api-keys/created', { title: 'New API key', nav: 'api-keys', created }, 201);
  });

  const liveKey = async (accountSid: string, keySid: string) =>
    (await accounts.listKeys(accountSid)).find((k) => k.sid === keySid);

  router.get('/settings/api-keys/:sid/revoke', async (req, res) => {
    const session = sessionOf(res);
    const key = await liveKey(session.account.sid, req.params.sid);
    if (!key) return notFoundPage(res);
    const current = key.sid === session.keySid;
    render(res, 'api-keys/revoke', { title: 'Revoke API key', nav: 'api-keys', key, current });
  });

  router.post('/settings/api-keys/:sid/revoke', async (req, res) => {
    const session = sessionOf(res);
    if (!(await accounts.revokeAccountKey(session.account.sid, req.params.sid))) return notFoundPage(res);
    if (req.params.sid === session.keySid) {
      await ctx.sessions.close(session.tokenHash);
      clearCookie(res, SESSION_COOKIE, secureCookies(req, ctx.services.config.publicUrl));
      return res.redirect(303, '/dashboard/sign-in');
    }
    await flashAndRedirect(ctx, res, '/dashboard/settings/api-keys', `Key ${req.params.sid} revoked.`);
  });
}
