// POST /v1/account/webhook-secret/rotate: a new webhook signing secret; the old one signs too for 24 hours.
import type { Handler } from '../../http/operation.js';

export const rotateWebhookSecret: Handler<'rotateWebhookSecret'> = async ({ account, services }) => ({
  status: 200,
  body: (await services.accounts.rotateWebhookSecret(account.sid))!,
});
