// POST /v1/account: change the account's settings (verify_callback_url).
import type { Handler } from '../../http/operation.js';

export const updateAccount: Handler<'updateAccount'> = async ({ account, body, services }) => ({
  status: 200,
  body: await services.accountSettings.update(account.sid, body),
});
