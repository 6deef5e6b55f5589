// A participant's call that ends before its bridge is placed: here the sandbox lets calls ring for ten minutes, so
// the caller's leg is canceled while it still rings, and its interaction ends `failed` with nothing sent.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { CALLS_NEVER_ANSWERED } from '../support/calls.js';
import { createSession, pair, participant, provisionPool } from '../support/proxy.js';

describe.each(ENGINES)('proxy call relay: a call ended before its bridge (%s)', (engine) => {
  const t = useTestServer({ engine, env: CALLS_NEVER_ANSWERED });
  const receiver = useReceiver();

  it('fails the interaction, with nothing sent, when the caller hangs up before the bridge is placed', async () => {
    const { account } = t;
    await provisionPool(t, account, 1);
    const session = await createSession(account.client, {
      participants: pair(participant(1), participant(2)),
      callback_url: `${receiver.url}/proxy`,
    });
    const { identifier, proxy_identifier: proxyNumber } = session.participants[0];
    const { data: inbound } = await account.client.POST('/v1/sandbox/inbound-calls', {
      body: { from: identifier, to: proxyNumber },
    });
    expect(inbound!.status).toBe('ringing');
    const { data: canceled } = await account.client.POST('/v1/calls/{sid}', {
      params: { path: { sid: inbound!.sid } },
      body: { status: 'canceled' },
    });
    expect(canceled!.status).toBe('canceled');

    const events = () => receiver.received.filter((w) => w.json?.data?.session_sid === session.sid);
    await receiver.waitFor(() => events().length >= 2);
    expect(events().map((w) => [w.json.type, w.json.data.status, w.json.data.outbound_sid])).toEqual([
      ['proxy.interaction.created', 'in-progress', null],
      ['proxy.interaction.updated', 'failed', null],
    ]);
    expect(events()[1].json.data).toMatchObject({ inbound_sid: inbound!.sid, duration: null });
  });
});
