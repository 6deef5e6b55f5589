// INTERIM: D1's route replaces this at merge. POST /v1/calls/{sid}, just enough to drive the engine's tests.
import type { Handler } from '../../http/operation.js';
import { errors } from '../../errors.js';
import { callView } from '../../calls/view.js';
import { callBySid } from '../../calls/engine/store.js';

export const updateCall: Handler<'updateCall'> = async ({ account, params, body, services }) => {
  const view = await services.store.transaction(async (tx) => {
    const row = await callBySid(tx.db, params.sid);
    if (row?.account_sid !== account.sid) throw errors.noSuchCall(params.sid);
    const engine = services.callEngine;
    if (body.status) return callView(await engine.end(tx, row, body.status));
    if (body.url) return callView(await engine.redirect(tx, row, { url: body.url, method: body.method ?? 'POST' }));
    if (body.twiml) return callView(await engine.redirect(tx, row, { twiml: body.twiml }));
    throw errors.invalidRequest('Give status, url or twiml.');
  });
  return { status: 200, body: view };
};
