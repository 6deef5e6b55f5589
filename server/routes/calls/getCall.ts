// GET /v1/calls/{sid}: one call of the account with its current status, timing and price.
import type { Handler } from '../../http/operation.js';

export const getCall: Handler<'getCall'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.calls.get(account.sid, params.sid),
});
