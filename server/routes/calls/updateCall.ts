// POST /v1/calls/{sid}: end a live call, or give it new instructions.
import type { Handler } from '../../http/operation.js';

export const updateCall: Handler<'updateCall'> = async ({ account, params, body, services }) => ({
  status: 200,
  body: await services.calls.update(account.sid, params.sid, body),
});
