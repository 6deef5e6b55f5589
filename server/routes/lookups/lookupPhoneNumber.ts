// GET /v1/lookups/phone-numbers/{number}: what is known about one number.
import type { Handler } from '../../http/operation.js';

export const lookupPhoneNumber: Handler<'lookupPhoneNumber'> = async ({ params, query, services }) => ({
  status: 200,
  body: await services.lookups.lookup(params.number, query.country_code),
});
