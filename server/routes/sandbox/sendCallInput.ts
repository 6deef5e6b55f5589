// INTERIM: D1's route replaces this at merge. POST /v1/sandbox/calls/{sid}/input, for the engine's tests.
import type { Handler } from '../../http/operation.js';
import { errors } from '../../errors.js';
import { callView } from '../../calls/view.js';
import { callBySid } from '../../calls/engine/store.js';

export const sendCallInput: Handler<'sendCallInput'> = async ({ account, params, body, services }) => {
  const view = await services.store.transaction(async (tx) => {
    const row = await callBySid(tx.db, params.sid);
    if (row?.account_sid !== account.sid) throw errors.noSuchCall(params.sid);
    const input = body.digits ? { digits: body.digits } : { speech: body.speech ?? '' };
    return callView(await services.callEngine.input(tx, row, input));
  });
  return { status: 200, body: view };
};
