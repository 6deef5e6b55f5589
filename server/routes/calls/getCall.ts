// INTERIM: D1's route replaces this at merge. GET /v1/calls/{sid}, just enough to drive the engine's tests.
import type { Handler } from '../../http/operation.js';
import { errors } from '../../errors.js';
import { callView } from '../../calls/view.js';
import { callBySid } from '../../calls/engine/store.js';

export const getCall: Handler<'getCall'> = async ({ account, params, services }) => {
  const row = await callBySid(services.store.db, params.sid);
  if (row?.account_sid !== account.sid) throw errors.noSuchCall(params.sid);
  return { status: 200, body: callView(row) };
};
