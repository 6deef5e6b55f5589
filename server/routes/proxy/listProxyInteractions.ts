// GET /v1/proxy/sessions/{sid}/interactions: what was relayed in one session of the account, newest first.
import type { Handler } from '../../http/operation.js';

export const listProxyInteractions: Handler<'listProxyInteractions'> = async ({
  account,
  params,
  query,
  services,
}) => ({
  status: 200,
  body: await services.proxy.interactions(account.sid, params.sid, {
    page_size: query.page_size,
    page_token: query.page_token,
  }),
});
