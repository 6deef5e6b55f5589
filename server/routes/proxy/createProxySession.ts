// POST /v1/proxy/sessions: mask two participants behind numbers of the account's pool.
import type { Handler } from '../../http/operation.js';

export const createProxySession: Handler<'createProxySession'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.proxy.create(account.sid, body, { recorder }),
});
