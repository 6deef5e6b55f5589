// POST /v1/sandbox/calls/{sid}/input: the other end of a live call presses digits or speaks.
import type { Handler } from '../../http/operation.js';

export const sendCallInput: Handler<'sendCallInput'> = async ({ account, params, body, services }) => ({
  status: 200,
  body: await services.calls.input(account.sid, params.sid, body),
});
