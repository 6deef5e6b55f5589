// Settings > Webhook secret: reveal the signing secret (only in the answer to a POST, never in a page's source by
// default) and rotate it (after a confirmation; the old one signs too for 24 hours, see AccountService).
import type { Response, Router } from 'express';
import { render } from '../render.js';
import { type DashboardContext, sessionOf } from '../context.js';
import { secretFingerprint } from '../../accounts/service.js';

export function mountWebhookSecret(router: Router, ctx: DashboardContext): void {
  const page = '/settings/webhook-secret';
  const show = async (res: Response, extra: Record<string, unknown> = {}) => {
    const state = await ctx.services.accounts.webhookSecret(sessionOf(res).account.sid);
    render(res, 'settings/webhook-secret', {
      title: 'Webhook secret',
      nav: 'webhook-secret',
      previousExpires: state.previous_secret_expires_at,
      revealed: null,
      rotated: false,
      confirm: false,
      already: false,
      fingerprint: '',
      ...extra,
    });
  };
  router.get(page, async (_req, res) => show(res));
  router.post(`${page}/reveal`, async (_req, res) => {
    const state = await ctx.services.accounts.webhookSecret(sessionOf(res).account.sid);
    await show(res, { revealed: state.webhook_secret });
  });
  // The confirmation names the secret it rotates (a fingerprint): posted twice (a double click, a reload), the form
  // rotates once, and the second answer shows the secret the first made, so the one receivers use is not dropped.
  router.get(`${page}/rotate`, async (_req, res) => {
    const state = await ctx.services.accounts.webhookSecret(sessionOf(res).account.sid);
    await show(res, { confirm: true, fingerprint: secretFingerprint(state.webhook_secret) });
  });
  router.post(`${page}/rotate`, async (req, res) => {
    const account = sessionOf(res).account.sid;
    const ifCurrent = typeof req.body?.current === 'string' ? req.body.current : '';
    const rotated = await ctx.services.accounts.rotateWebhookSecret(account, { ifCurrent });
    if (rotated) return show(res, { revealed: rotated.webhook_secret, rotated: true });
    const state = await ctx.services.accounts.webhookSecret(account);
    await show(res, { revealed: state.webhook_secret, rotated: true, already: true });
  });
}
