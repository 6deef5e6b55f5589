// GET /v1/calls: the account's calls, inbound and outbound, newest first, filtered.
import type { Handler } from '../../http/operation.js';

export const listCalls: Handler<'listCalls'> = async ({ account, query, services }) => ({
  status: 200,
  body: await services.calls.list(
    account.sid,
    {
      to: query.to,
      from: query.from,
      status: query.status,
      direction: query.direction,
      createdAfter: query.date_created_after,
      createdBefore: query.date_created_before,
    },
    { page_size: query.page_size, page_token: query.page_token },
  ),
});
