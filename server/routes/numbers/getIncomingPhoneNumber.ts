// GET /v1/incoming-phone-numbers/{sid}: one number of the account with its configuration.
import type { Handler } from '../../http/operation.js';

export const getIncomingPhoneNumber: Handler<'getIncomingPhoneNumber'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.numbers.get(account.sid, params.sid),
});
