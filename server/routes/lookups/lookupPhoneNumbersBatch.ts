// POST /v1/lookups/batch: up to 1000 numbers, one entry per input in input order.
import type { Handler } from '../../http/operation.js';

export const lookupPhoneNumbersBatch: Handler<'lookupPhoneNumbersBatch'> = async ({ body, services }) => ({
  status: 200,
  body: { data: await services.lookups.lookupBatch(body.phone_numbers, body.country_code) },
});
