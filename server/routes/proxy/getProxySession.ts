// GET /v1/proxy/sessions/{sid}: one session of the account with its participants and their proxy numbers.
import type { Handler } from '../../http/operation.js';

export const getProxySession: Handler<'getProxySession'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.proxy.get(account.sid, params.sid),
});
