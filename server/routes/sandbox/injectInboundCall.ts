// POST /v1/sandbox/inbound-calls: simulate a call from an outside number to a number of the account.
import type { Handler } from '../../http/operation.js';

export const injectInboundCall: Handler<'injectInboundCall'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.calls.injectInbound(account.sid, body, { recorder }),
});
