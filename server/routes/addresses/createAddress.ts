// POST /v1/addresses: submit an address; it is verified (or rejected) later by a job.
import type { Handler } from '../../http/operation.js';

export const createAddress: Handler<'createAddress'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.addresses.create(account.sid, body, { recorder }),
});
