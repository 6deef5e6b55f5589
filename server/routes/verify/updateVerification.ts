// POST /v1/verify/{sid}: cancel a pending verification (`status: canceled` is the only change allowed).
import type { Handler } from '../../http/operation.js';

export const updateVerification: Handler<'updateVerification'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.verify.cancel(account.sid, params.sid),
});
