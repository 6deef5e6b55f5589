// POST /v1/incoming-phone-numbers/{sid}: change a number's label, webhooks or address.
import type { Handler } from '../../http/operation.js';

export const updateIncomingPhoneNumber: Handler<'updateIncomingPhoneNumber'> = async ({
  account,
  body,
  params,
  services,
}) => ({
  status: 200,
  body: await services.numbers.update(account.sid, params.sid, body),
});
