// GET /v1/incoming-phone-numbers: the account's numbers, newest first, filtered.
import type { Handler } from '../../http/operation.js';

export const listIncomingPhoneNumbers: Handler<'listIncomingPhoneNumbers'> = async ({ account, query, services }) => ({
  status: 200,
  body: await services.numbers.list(
    account.sid,
    { phone_number: query.phone_number, friendly_name: query.friendly_name },
    { page_size: query.page_size, page_token: query.page_token },
  ),
});
