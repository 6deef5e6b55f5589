// POST /v1/messages: send an SMS, MMS or RCS message from a number of the account.
import type { Handler } from '../../http/operation.js';

export const sendMessage: Handler<'sendMessage'> = async ({ account, body, services, recorder }) => ({
  status: 201,
  body: await services.messages.sendMessage(account.sid, body, { recorder }),
});
