// DELETE /v1/messages/{sid}: delete a finished message, or cancel a scheduled one before its time.
import type { Handler } from '../../http/operation.js';

export const deleteMessage: Handler<'deleteMessage'> = async ({ account, params, services }) => {
  await services.messages.deleteMessage(account.sid, params.sid);
  return { status: 204 };
};
