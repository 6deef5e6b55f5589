// POST /v1/verify/check: check a code against a verification found by `to` or `verification_sid`.
import type { Handler } from '../../http/operation.js';

export const checkVerification: Handler<'checkVerification'> = async ({ account, body, services }) => ({
  status: 200,
  body: await services.verify.check(account.sid, body),
});
