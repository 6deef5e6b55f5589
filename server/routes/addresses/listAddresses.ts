// GET /v1/addresses: the account's addresses, newest first, whatever their status.
import type { Handler } from '../../http/operation.js';

export const listAddresses: Handler<'listAddresses'> = async ({ account, query, services }) => ({
  status: 200,
  body: await services.addresses.list(account.sid, { page_size: query.page_size, page_token: query.page_token }),
});
