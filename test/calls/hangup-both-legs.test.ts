// Both legs of a call between two numbers of this platform hung up at once: each request ends its own leg and then
// its peer, so the two take the same rows in opposite orders (a deadlock on PostgreSQL, which ends one of them). The
// one ended runs again, and finds its leg ended: one 200 and one 409 call_not_modifiable, or two 200s; never a 500.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, finalCall, holdNumber } from './support.js';

const LONG = '<Response><Pause length="600"/></Response>';
const ROUNDS = 6;

describe.each(ENGINES)('hanging up both legs of a call at once (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const receiver = useReceiver();
  let account: TestAccount;
  let caller: string;
  let callee: string;
  beforeAll(async () => {
    account = await t.newAccount();
    receiver.answer = () => ({ status: 200, contentType: 'text/xml', body: LONG });
    caller = await holdNumber(account);
    callee = await holdNumber(account, { VoiceUrl: `${receiver.url}/callee` });
  });

  const hangUp = (sid: string) =>
    account.client.POST('/v1/calls/{sid}', { params: { path: { sid } }, body: { status: 'completed' } });

  it(`ends both legs with no 500, ${ROUNDS} times over`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { data: call } = await account.client.POST('/v1/calls', {
        body: { from: caller, to: callee, twiml: LONG },
      });
      const legs = await waitUntil(
        async () => {
          const { data } = await account.client.GET('/v1/calls', { params: { query: { to: callee, page_size: 10 } } });
          const inbound = data!.data.find((c) => c.direction === 'inbound' && c.status === 'in-progress');
          const outbound = data!.data.find((c) => c.sid === call!.sid && c.status === 'in-progress');
          return inbound && outbound ? [outbound.sid, inbound.sid] : undefined;
        },
        10_000,
        'both legs answered',
      );
      const answers = await Promise.all(legs.map(hangUp));
      const statuses = answers.map((a) => a.response.status).sort();
      expect([
        [200, 200],
        [200, 409],
      ]).toContainEqual(statuses);
      for (const answer of answers.filter((a) => a.response.status === 409))
        expect(answer.error).toMatchObject({ code: 'call_not_modifiable' });
      for (const sid of legs) expect(await finalCall(account, sid)).toMatchObject({ status: 'completed' });
    }
  });
});
