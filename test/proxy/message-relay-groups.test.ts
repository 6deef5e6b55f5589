// Relays sent by delivered reports claimed together: on PostgreSQL those reports share one transaction (a group of
// job transactions), where a savepoint is refused; the relay's send is admitted before it writes instead, so the
// groups commit, and each message reaches the other participant once.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { scrape } from '../support/metrics.js';

/** The job groups of the server by outcome, from /metrics (0 for a series not printed yet). */
async function groups(url: string): Promise<{ committed: number; failed: number }> {
  const samples = await scrape(url);
  const count = (outcome: string) => samples.get(`job_groups_total{outcome="${outcome}"}`) ?? 0;
  return { committed: count('committed'), failed: count('failed') };
}

describe.each(ENGINES)('proxy relays of reports claimed together (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  const receiver = useReceiver();

  it('relays twelve messages sent at once, each once, with no group of job transactions failing', async () => {
    const owner = await t.newAccount();
    await giveNumber(t, owner);
    const party = async (name: string) => {
      const account = await t.newAccount();
      return { account, number: await giveNumber(t, account, { smsUrl: `${receiver.url}/${name}` }) };
    };
    const [alice, bob] = [await party('alice'), await party('bob')];
    const { data: session } = await owner.client.POST('/v1/proxy/sessions', {
      body: {
        mode: 'message-only',
        participants: [
          { identifier: alice.number, friendly_name: 'Alice' },
          { identifier: bob.number, friendly_name: 'Bob' },
        ],
      },
    });
    const before = await groups(t.url);
    const bodies = Array.from({ length: 12 }, (_, i) => `message ${i}`);
    const sent = await Promise.all(
      bodies.map((body) =>
        alice.account.client.POST('/v1/messages', {
          body: { from: alice.number, to: session!.participants[0].proxy_identifier, body },
        }),
      ),
    );
    expect(sent.map((s) => s.response.status)).toEqual(bodies.map(() => 201));

    await receiver.waitFor((all) => all.filter((r) => r.path === '/bob').length >= bodies.length);
    const relayed = receiver.received.filter((r) => r.path === '/bob').map((r) => r.json.data.body as string);
    expect(relayed.sort()).toEqual([...bodies].sort());
    const after = await groups(t.url);
    expect(after.failed - before.failed).toBe(0);
    if (engine === 'postgres') expect(after.committed - before.committed).toBeGreaterThan(0);
    else expect(after.committed).toBe(0);
  });
});
