// DELETE /v1/addresses/{sid}: remove an address no number uses.
import type { Handler } from '../../http/operation.js';

export const deleteAddress: Handler<'deleteAddress'> = async ({ account, params, services }) => {
  await services.addresses.delete(account.sid, params.sid);
  return { status: 204 };
};
