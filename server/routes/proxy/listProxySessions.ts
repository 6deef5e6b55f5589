// GET /v1/proxy/sessions: the account's sessions, newest first, closed ones included, by status.
import type { Handler } from '../../http/operation.js';

export const listProxySessions: Handler<'listProxySessions'> = async ({ account, query, services }) => ({
  status: 200,
  body: await services.proxy.list(account.sid, query.status, {
    page_size: query.page_size,
    page_token: query.page_token,
  }),
});
