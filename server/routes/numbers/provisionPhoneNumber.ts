// POST /v1/incoming-phone-numbers: buy a number from the inventory for the account.
import type { Handler } from '../../http/operation.js';

export const provisionPhoneNumber: Handler<'provisionPhoneNumber'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.numbers.provision(account.sid, body, { recorder }),
});
