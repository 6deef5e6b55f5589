// The server SIGKILLed mid-pipeline with hundreds of messages in flight, then restarted on the same database:
// every message reaches a final state, none is sent twice, every status callback arrives at least once.
import { describe, expect, it } from 'vitest';
import type { TelephonyClient } from '../../client/index.js';
import type { Config } from '../../server/config.js';
import { ENGINES } from '../support/server.js';
import { killableServer, useCleanups } from '../support/killable.js';
import { waitUntil } from '../support/wait.js';
import { CRASH_PIPELINE } from '../support/lease.js';
import { startReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

const MESSAGES = 300;
const API_KEY = 'tk_crash_test_key_0123456789abcdef';

async function allMessages(client: TelephonyClient) {
  const out = [];
  let token: string | undefined;
  do {
    const { data } = await client.GET('/v1/messages', { params: { query: { page_size: 1000, page_token: token } } });
    out.push(...data!.data);
    token = data!.next_page_token ?? undefined;
  } while (token);
  return out;
}

describe.each(ENGINES)('a server killed mid-pipeline (%s)', (engine) => {
  const cleanups = useCleanups();

  it(
    'finishes every message exactly once after a restart and delivers every callback',
    { timeout: 180_000 },
    async () => {
      const server = await killableServer(
        engine,
        API_KEY,
        // Jobs the killed instance held run again once their lease ends: the shortest lease allowed. The sending
        // number paced at 30 messages a second, so the 300 take 10 s to go out: on a loaded machine the sends alone
        // took long enough, at the pipeline's 150 a second, for every message to be final before the kill.
        { ...CRASH_PIPELINE, SANDBOX_MESSAGES_PER_SECOND: '30' },
        cleanups,
      );
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());

      await server.start();
      const { client } = server;
      const search = await client.GET('/v1/available-phone-numbers/{country}/Local', {
        params: { path: { country: 'US' }, query: { page_size: 1 } },
      });
      const from = (
        await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber: search.data!.data[0].phone_number } })
      ).data!.phone_number;

      const sids: string[] = [];
      await Promise.all(
        Array.from({ length: 10 }, async (_, lane) => {
          for (let i = lane; i < MESSAGES; i += 10) {
            const { data } = await client.POST('/v1/messages', {
              body: { from, to: '+14155550123', body: `crash ${i}`, status_callback: `${receiver.url}/cb` },
            });
            sids.push(data!.sid);
          }
        }),
      );
      // Kill it while the pipeline is busy: some callbacks out, most messages still on their way.
      await receiver.waitFor((r) => r.length >= 60, 60_000);
      await server.kill();
      const atKill = await statusCounts(server.config, sids);
      expect(atKill.final).toBeLessThan(MESSAGES);

      await server.start();
      const finished = await waitUntil(
        async () => {
          const list = await allMessages(client);
          return list.length === MESSAGES && list.every((m) => m.status === 'delivered') && list;
        },
        120_000,
        'every message to be delivered',
      );
      expect(new Set(finished.map((m) => m.sid))).toEqual(new Set(sids));

      const bySid = new Map<string, ReceivedWebhook[]>();
      await receiver.waitFor((r) => {
        bySid.clear();
        for (const w of r) bySid.set(w.json.data.sid, [...(bySid.get(w.json.data.sid) ?? []), w]);
        return sids.every((sid) => new Set((bySid.get(sid) ?? []).map((w) => w.json.type)).size === 3);
      }, 120_000);
      for (const sid of sids) {
        const events = bySid.get(sid)!;
        // In order (first arrivals), and each status reached once: one distinct event per status.
        const firsts = [...new Map(events.map((w) => [w.headers['webhook-id'], w.json.type])).values()];
        expect(firsts).toEqual(['message.sending', 'message.sent', 'message.delivered']);
      }
    },
  );
});

/** How many of the messages were final when the server died (read straight from the database). */
async function statusCounts(config: Config, sids: string[]) {
  const { Store } = await import('../../server/store/db.js');
  const store = await Store.open({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema ?? undefined,
  });
  try {
    const rows = await store.db.selectFrom('messages').select(['sid', 'status']).execute();
    return { total: rows.length, final: rows.filter((r) => r.status === 'delivered' && sids.includes(r.sid)).length };
  } finally {
    await store.close();
  }
}
