// GET /v1/addresses/{sid}: one address with its verification status.
import type { Handler } from '../../http/operation.js';

export const getAddress: Handler<'getAddress'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.addresses.get(account.sid, params.sid),
});
