// POST /v1/sandbox/inbound-messages: simulate a message from an outside number to a number of the account.
import type { Handler } from '../../http/operation.js';

export const injectInboundMessage: Handler<'injectInboundMessage'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.messages.injectInbound(account.sid, body, { recorder }),
});
