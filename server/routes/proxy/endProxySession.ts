// DELETE /v1/proxy/sessions/{sid}: end the session now (204 also when it had already ended).
import type { Handler } from '../../http/operation.js';

export const endProxySession: Handler<'endProxySession'> = async ({ account, params, services }) => {
  await services.proxy.end(account.sid, params.sid);
  return { status: 204 };
};
