// GET /v1/calls/{sid}/recordings: the recordings of one call of the account, newest first.
import type { Handler } from '../../http/operation.js';

export const listCallRecordings: Handler<'listCallRecordings'> = async ({ account, params, query, services }) => ({
  status: 200,
  body: await services.calls.recordings(account.sid, params.sid, {
    page_size: query.page_size,
    page_token: query.page_token,
  }),
});
