// GET /v1/messages/{sid}: one message of the account with its current status.
import type { Handler } from '../../http/operation.js';

export const getMessage: Handler<'getMessage'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.messages.getMessage(account.sid, params.sid),
});
