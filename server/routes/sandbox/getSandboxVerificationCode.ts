// GET /v1/sandbox/verification-codes/{to}: the last code the sandbox network delivered to `to` (sandbox only).
import type { Handler } from '../../http/operation.js';

export const getSandboxVerificationCode: Handler<'getSandboxVerificationCode'> = async ({
  account,
  params,
  services,
}) => ({
  status: 200,
  body: await services.verify.sandboxCode(account.sid, params.to),
});
