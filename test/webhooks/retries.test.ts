// Durable delivery: retries with backoff on connection errors, timeouts and non-2xx; order per message; every
// attempt recorded.
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber, giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';
import { freePort } from '../support/prism.js';

const ORDER = ['message.sending', 'message.sent', 'message.delivered'];

describe.each(ENGINES)('webhook retries (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, WEBHOOK_MAX_ATTEMPTS: '30', WEBHOOK_TIMEOUT_MS: '300' } });
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const db = () => t.server.services.store.db;
  /** Every recorded attempt to deliver the event, first to last. */
  const attemptsOf = (eventId: string) =>
    db().selectFrom('webhook_attempts').selectAll().where('event_id', '=', eventId).orderBy('attempt').execute();
  const bySid = (received: ReceivedWebhook[], sid: string) => received.filter((w) => w.json?.data?.sid === sid);

  it('delivers every callback, signed and in order per message, once a receiver that was down comes up', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/cb`;
    const sids: string[] = [];
    for (let i = 0; i < 20; i++) {
      sids.push(
        (
          await account.client.POST('/v1/messages', {
            body: { from, to: '+14155550123', body: `down ${i}`, status_callback: url },
          })
        ).data!.sid,
      );
    }
    for (const sid of sids) await waitForStatus(account.client, sid, 'delivered');
    // Nobody listened so far: attempts failed with connection errors.
    await waitUntil(async () => {
      const failed = await db().selectFrom('webhook_attempts').select('error').where('error', 'is not', null).execute();
      return failed.length >= 20;
    });
    const receiver = await startReceiver(port);
    try {
      await receiver.waitFor((r) => r.length >= 60, 30_000);
      const verifier = new Webhook(account.webhookSecret);
      for (const sid of sids) {
        const events = bySid(receiver.received, sid);
        expect(events.map((w) => w.json.type)).toEqual(ORDER);
        for (const w of events) verifier.verify(w.body, w.headers);
      }
      // The receiver may see the last answer a moment before the server records it.
      const events = await waitUntil(async () => {
        const rows = await db().selectFrom('webhook_events').selectAll().where('resource_sid', 'in', sids).execute();
        return rows.length === 60 && rows.every((e) => e.status === 'delivered') && rows;
      });
      // Each event kept its webhook-id across its attempts, and every attempt is on record.
      for (const event of events) {
        const attempts = await attemptsOf(event.id);
        expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1));
        expect(attempts).toHaveLength(event.attempts);
        expect(attempts[attempts.length - 1].response_status).toBe(200);
      }
      expect(events.some((e) => e.attempts > 1)).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('retries on non-2xx answers and on timeouts, with the same webhook-id, until a 2xx', async () => {
    const receiver = await startReceiver();
    let calls = 0;
    receiver.answer = () => {
      calls++;
      if (calls === 1) return { status: 500 };
      if (calls === 2) return { status: 200, delayMs: 600 }; // beyond the 300 ms timeout
      if (calls === 3) return { status: 404 };
      return { status: 204 };
    };
    try {
      const { data } = await account.client.POST('/v1/messages', {
        body: { from, to: '+15005550001', body: 'fails fast', status_callback: `${receiver.url}/x` },
      });
      // Accepted in the end: the 204 of the fourth try, the message.failed after it, and the timed-out try's late
      // 200, which the receiver counts when it answers (600 ms after that try began, whatever came between).
      await receiver.waitFor((r) => bySid(r, data!.sid).length === 3);
      const sending = receiver.all.filter((w) => w.json?.type === 'message.sending');
      expect(sending.length).toBe(4);
      expect(new Set(sending.map((w) => w.headers['webhook-id'])).size).toBe(1);
      const types = bySid(receiver.all, data!.sid).map((w) => w.json.type);
      expect(types).toEqual([...Array(4).fill('message.sending'), 'message.failed']);
      const [event] = await db()
        .selectFrom('webhook_events')
        .selectAll()
        .where('resource_sid', '=', data!.sid)
        .where('type', '=', 'message.sending')
        .execute();
      const attempts = await attemptsOf(event.id);
      expect(attempts.map((a) => a.response_status)).toEqual([500, null, 404, 204]);
      expect(attempts[1].error).toMatch(/timed out/);
    } finally {
      await receiver.close();
    }
  });
});

describe.each(ENGINES)('webhooks given up (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, WEBHOOK_MAX_ATTEMPTS: '3' } });

  it('gives an event up after the last attempt, then delivers the later events of the message', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const receiver = await startReceiver();
    receiver.answer = (w) => (w.json?.type === 'message.sending' ? { status: 503 } : { status: 200 });
    try {
      const { data } = await account.client.POST('/v1/messages', {
        body: { from, to: '+14155550123', body: 'x', status_callback: `${receiver.url}/x` },
      });
      await receiver.waitFor((r) => r.length === 2);
      expect(receiver.received.map((w) => w.json.type)).toEqual(['message.sent', 'message.delivered']);
      const db = t.server.services.store.db;
      const [given] = await db
        .selectFrom('webhook_events')
        .selectAll()
        .where('resource_sid', '=', data!.sid)
        .where('type', '=', 'message.sending')
        .execute();
      expect(given).toMatchObject({ status: 'failed', attempts: 3 });
      expect(
        await db.selectFrom('webhook_attempts').select('response_status').where('event_id', '=', given.id).execute(),
      ).toEqual([{ response_status: 503 }, { response_status: 503 }, { response_status: 503 }]);
    } finally {
      await receiver.close();
    }
  });
});
