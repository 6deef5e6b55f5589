// INTERIM: D1's route replaces this at merge. POST /v1/calls, just enough to drive the engine's tests.
import type { Handler } from '../../http/operation.js';
import { errors } from '../../errors.js';
import { callView } from '../../calls/view.js';
import { parseTwiml } from '../../calls/twiml/parse.js';
import { newLeg } from '../../calls/engine/legs.js';
import { insertCall } from '../../calls/engine/store.js';

export const makeCall: Handler<'makeCall'> = async ({ account, body, services, recorder }) => {
  if (!body.url === !body.twiml) throw errors.invalidRequest('Give exactly one of url or twiml.');
  if (body.twiml && !parseTwiml(body.twiml, null).ok) throw errors.invalidField('twiml', 'not valid instructions');
  const view = await services.store.transaction(async (tx) => {
    const owned = await tx.db
      .selectFrom('incoming_numbers')
      .select('sid')
      .where('phone_number', '=', body.from)
      .where('account_sid', '=', account.sid)
      .executeTakeFirst();
    if (!owned) throw errors.fromNumberNotOwned(body.from);
    const row = newLeg(
      {
        account_sid: account.sid,
        from_number: body.from,
        to_number: body.to,
        direction: 'outbound-api',
        status: 'queued',
        url: body.url ?? null,
        method: body.url ? (body.method ?? 'POST') : null,
        twiml: body.twiml ?? null,
        status_callback: body.status_callback ?? null,
        status_callback_events: body.status_callback_event?.join(' ') ?? null,
        recording_status_callback: body.recording_status_callback ?? null,
        record: body.record ? 1 : 0,
        recording_channels: body.recording_channels === 'dual' ? 2 : 1,
        timeout: body.timeout ?? 60,
        time_limit: body.time_limit ?? 14400,
      },
      tx.clock.now(),
    );
    await insertCall(tx.db, row);
    await services.callEngine.place(tx, row);
    const record = callView(row);
    await recorder?.record(tx, record);
    return record;
  });
  return { status: 201, body: view };
};
