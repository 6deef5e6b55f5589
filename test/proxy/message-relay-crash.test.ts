// The server SIGKILLed while participants' messages to their proxy numbers are being relayed, then restarted on the
// same database: every inbound message it acknowledged (or stored) has exactly one relayed message, never none and
// never two, and every relay goes on to be delivered once, with its interaction's events.
import { describe, expect, it } from 'vitest';
import type { TelephonyClient } from '../../client/index.js';
import type { components } from '../../generated/openapi.js';
import type { Config } from '../../server/config.js';
import { ENGINES } from '../support/server.js';
import { killableServer, useCleanups } from '../support/killable.js';
import { waitUntil } from '../support/wait.js';
import { CRASH_PIPELINE } from '../support/lease.js';
import { startReceiver } from '../support/webhook-receiver.js';

type Interaction = components['schemas']['ProxyInteraction'];

const SESSIONS = 10;
const POOL = 3;
/** Acknowledged inbound messages before the kill; the lanes keep sending until it. */
const KILL_AFTER = 150;
const API_KEY = 'tk_proxy_crash_test_key_0123456789ab';

async function allMessages(client: TelephonyClient, direction: 'inbound' | 'outbound-reply') {
  const out = [];
  let token: string | undefined;
  do {
    const { data } = await client.GET('/v1/messages', {
      params: { query: { direction, page_size: 1000, page_token: token } },
    });
    out.push(...data!.data);
    token = data!.next_page_token ?? undefined;
  } while (token);
  return out;
}

async function allInteractions(client: TelephonyClient, sessionSids: string[]): Promise<Interaction[]> {
  const out: Interaction[] = [];
  for (const sid of sessionSids) {
    let token: string | undefined;
    do {
      const { data } = await client.GET('/v1/proxy/sessions/{sid}/interactions', {
        params: { path: { sid }, query: { page_size: 1000, page_token: token } },
      });
      out.push(...data!.data);
      token = data!.next_page_token ?? undefined;
    } while (token);
  }
  return out;
}

describe.each(ENGINES)('a server killed while relaying proxy messages (%s)', (engine) => {
  const cleanups = useCleanups();

  it(
    'relays every stored inbound message exactly once after a restart, and delivers each relay once',
    { timeout: 180_000 },
    async () => {
      const server = await killableServer(
        engine,
        API_KEY,
        // Jobs the killed instance held run again once their lease ends: the shortest lease allowed.
        CRASH_PIPELINE,
        cleanups,
      );
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());

      await server.start();
      const { client } = server;
      const search = await client.GET('/v1/available-phone-numbers/{country}/Local', {
        params: { path: { country: 'US' }, query: { page_size: POOL } },
      });
      for (const candidate of search.data!.data) {
        const { response } = await client.POST('/v1/incoming-phone-numbers', {
          body: { PhoneNumber: candidate.phone_number },
        });
        expect(response.status).toBe(201);
      }
      const sessions = [];
      for (let i = 0; i < SESSIONS; i++) {
        const { data, error } = await client.POST('/v1/proxy/sessions', {
          body: {
            mode: 'message-only',
            callback_url: `${receiver.url}/events`,
            participants: [
              { identifier: `+1415555${String(1000 + i)}` },
              { identifier: `+1415555${String(2000 + i)}` },
            ],
          },
        });
        if (!data) throw new Error(`session not created: ${JSON.stringify(error)}`);
        sessions.push(data);
      }

      // Ten participants text their proxy numbers, each its own lane, until the server dies under them.
      const acknowledged: { sid: string; body: string }[] = [];
      let killed = false;
      const lanes = Promise.all(
        sessions.map(async (session, lane) => {
          const [from] = session.participants;
          for (let n = 0; !killed; n++) {
            const body = `relay ${lane}-${n}`;
            try {
              const { data } = await client.POST('/v1/sandbox/inbound-messages', {
                body: { from: from.identifier, to: from.proxy_identifier, body },
              });
              if (data) acknowledged.push({ sid: data.sid, body });
            } catch {
              return; // the server is gone: this message may or may not have been stored
            }
          }
        }),
      );
      await waitUntil(async () => acknowledged.length >= KILL_AFTER, 60_000, `${KILL_AFTER} acknowledged messages`);
      await server.kill();
      killed = true;
      await lanes;
      // The kill came mid-relay: relayed messages were still on their way.
      const atKill = await relaysAtKill(server.config);
      expect(atKill.delivered).toBeLessThan(atKill.total);

      await server.start();
      const sessionSids = sessions.map((s) => s.sid);
      const relays = await waitUntil(
        async () => {
          const list = await allMessages(client, 'outbound-reply');
          return list.every((m) => m.status === 'delivered') && list;
        },
        120_000,
        'every relayed message to be delivered',
      );
      const inbound = await allMessages(client, 'inbound');
      const interactions = await waitUntil(
        async () => {
          const list = await allInteractions(client, sessionSids);
          return list.every((i) => i.status === 'completed') && list;
        },
        60_000,
        'every interaction to be completed',
      );

      // Every acknowledged message was stored, and every stored one (acknowledged or cut off) relayed exactly once.
      const inboundSids = new Set(inbound.map((m) => m.sid));
      expect(acknowledged.filter((a) => !inboundSids.has(a.sid))).toEqual([]);
      expect(interactions.map((i) => i.inbound_sid).sort()).toEqual([...inboundSids].sort());
      expect(relays.map((m) => m.sid).sort()).toEqual(interactions.map((i) => i.outbound_sid).sort());
      const relayedBodies = relays.map((m) => m.body).sort();
      expect(relayedBodies).toEqual(inbound.map((m) => m.body).sort());
      expect(new Set(relayedBodies).size).toBe(relayedBodies.length);
      for (const { body } of acknowledged) expect(relayedBodies).toContain(body);

      // Each interaction's events: created then updated, each once (a redelivery repeats its webhook-id).
      await receiver.waitFor((r) => new Set(r.map((w) => w.headers['webhook-id'])).size >= 2 * interactions.length);
      const firsts = new Map<string, string[]>();
      const seen = new Set<string>();
      for (const w of receiver.received) {
        if (seen.has(w.headers['webhook-id'])) continue;
        seen.add(w.headers['webhook-id']);
        firsts.set(w.json.data.sid, [...(firsts.get(w.json.data.sid) ?? []), w.json.type]);
      }
      for (const interaction of interactions) {
        expect(firsts.get(interaction.sid)).toEqual(['proxy.interaction.created', 'proxy.interaction.updated']);
      }
    },
  );
});

/** How many relayed messages there were when the server died, and how many of them were delivered (read straight
 * from the database). */
async function relaysAtKill(config: Config) {
  const { Store } = await import('../../server/store/db.js');
  const store = await Store.open({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema ?? undefined,
  });
  try {
    const rows = await store.db
      .selectFrom('messages')
      .select('status')
      .where('direction', '=', 'outbound-reply')
      .execute();
    return { total: rows.length, delivered: rows.filter((r) => r.status === 'delivered').length };
  } finally {
    await store.close();
  }
}
