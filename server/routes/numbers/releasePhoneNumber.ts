// DELETE /v1/incoming-phone-numbers/{sid}: release the number at once; it returns to the inventory.
import type { Handler } from '../../http/operation.js';

export const releasePhoneNumber: Handler<'releasePhoneNumber'> = async ({ account, params, services }) => {
  await services.numbers.release(account.sid, params.sid);
  return { status: 204 };
};
