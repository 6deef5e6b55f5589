// GET /v1/verify/{sid}: a verification with its current status (final ones included).
import type { Handler } from '../../http/operation.js';

export const getVerification: Handler<'getVerification'> = async ({ account, params, services }) => ({
  status: 200,
  body: await services.verify.get(account.sid, params.sid),
});
