// POST /v1/calls: place a call from a number of the account, with instructions by URL or inline.
import type { Handler } from '../../http/operation.js';

export const makeCall: Handler<'makeCall'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.calls.make(account.sid, body, { recorder }),
});
