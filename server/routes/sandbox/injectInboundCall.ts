// INTERIM: D1's route replaces this at merge. POST /v1/sandbox/inbound-calls, just enough for the engine's tests.
import type { Handler } from '../../http/operation.js';
import { errors } from '../../errors.js';
import { callView } from '../../calls/view.js';
import { voiceNumber } from '../../calls/engine/store.js';

export const injectInboundCall: Handler<'injectInboundCall'> = async ({ account, body, services, recorder }) => {
  const view = await services.store.transaction(async (tx) => {
    const number = await voiceNumber(tx.db, body.to);
    if (number?.account_sid !== account.sid) throw errors.toNumberNotOwned(body.to);
    const record = callView(await services.callEngine.receive(tx, body.from, body.to));
    await recorder?.record(tx, record);
    return record;
  });
  return { status: 201, body: view };
};
