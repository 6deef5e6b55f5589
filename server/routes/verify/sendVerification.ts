// POST /v1/verify/send: send a one-time code (or re-send the pending one to the same number).
import type { Handler } from '../../http/operation.js';

export const sendVerification: Handler<'sendVerification'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.verify.send(account.sid, body, { recorder }),
});
