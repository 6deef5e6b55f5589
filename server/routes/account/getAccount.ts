// GET /v1/account: the account the API key belongs to, with its settings.
import type { Handler } from '../../http/operation.js';

export const getAccount: Handler<'getAccount'> = async ({ account, services }) => ({
  status: 200,
  body: await services.accountSettings.get(account.sid),
});
