// The delivery path holds up against one tenant's bad data: an account whose stored webhook secret cannot be opened
// fails its own events alone (the rest of the batch is delivered), and a reply the receiver answers that cannot be
// sent (a NUL character PostgreSQL cannot store, a refused media URL) is refused as a whole while the delivery
// itself stays recorded, once, and is not repeated.
import pino from 'pino';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/app.js';
import { REPLY_HANDLER } from '../../server/messages/events.js';
import { ENGINES, testEnv, useTestServer } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { giveNumber } from '../support/numbers.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver, useReceiver } from '../support/webhook-receiver.js';

describe.each(ENGINES)('an account whose webhook secret cannot be opened (%s)', (engine) => {
  const cleanups = useCleanups();

  /** A real server on a fresh database, with a logger whose warn and error lines the test reads, and a receiver. */
  async function setup() {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const store = await db.open();
    const errors: { msg: string; level: number; accountSid?: string; reason?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    const server = await start(loadConfig(testEnv(engine, db.dataDir)), { store, logger });
    cleanups.push(() => server.close());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    return { store, errors, server, receiver };
  }

  it("fails that account's events alone, with the reason, and delivers the other accounts' at once", async () => {
    const { store, errors, server, receiver } = await setup();
    const { accounts, webhooks } = server.services;
    const good = (await accounts.createAccount('good')).account;
    const broken = (await accounts.createAccount('broken')).account;
    // As an old instance would have left it: stored in clear, which no server secret opens.
    await store.db
      .updateTable('accounts')
      .set({ webhook_secret: 'whsec_c3RvcmVkIGluIGNsZWFyIGJ5IG1pc3Rha2U=' })
      .where('sid', '=', broken.sid)
      .execute();

    // Recorded in one transaction, so they are due together and claimed in the same batch.
    const ids = await store.transaction(async (tx) => {
      const enqueue = (accountSid: string, n: number) =>
        webhooks.enqueue(tx, {
          accountSid,
          url: `${receiver.url}/${accountSid}`,
          type: 'test.event',
          resourceSid: `${accountSid}-${n}`,
          data: { n },
        });
      return {
        good: [await enqueue(good.sid, 1), await enqueue(good.sid, 2)],
        broken: [await enqueue(broken.sid, 1), await enqueue(broken.sid, 2)],
      };
    });
    const all = [...ids.good, ...ids.broken];
    const events = await waitUntil(async () => {
      const rows = await store.db.selectFrom('webhook_events').selectAll().where('id', 'in', all).execute();
      return rows.every((e) => e.status !== 'pending') && rows;
    });
    const statusOf = (id: string) => events.find((e) => e.id === id)!;

    for (const id of ids.good) expect(statusOf(id)).toMatchObject({ status: 'delivered', attempts: 1, claims: 0 });
    expect(receiver.received.map((w) => w.path).sort()).toEqual([`/${good.sid}`, `/${good.sid}`]);
    const verifier = new Webhook(good.webhook_secret);
    for (const w of receiver.received) verifier.verify(w.body, w.headers);

    const reason = `the webhook secret of account ${broken.sid} cannot be opened with this server secret`;
    for (const id of ids.broken) {
      expect(statusOf(id)).toMatchObject({ status: 'failed', attempts: 1, claims: 0 });
      const attempts = await store.db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', id).execute();
      expect(attempts).toMatchObject([{ attempt: 1, response_status: null, error: reason }]);
    }
    // One line for the account (its two events were in one batch), naming it.
    const lines = errors.filter((e) => e.msg === 'webhook secret cannot be opened; its events fail');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, accountSid: broken.sid });
  });
  it('signs with the new secret once the stored one changes (a secret opened before is not reused)', async () => {
    const { store, server, receiver } = await setup();
    const { accounts, webhooks, webhookSecrets } = server.services;
    const account = (await accounts.createAccount('rotating')).account;
    const send = async (n: number) => {
      await store.transaction((tx) =>
        webhooks.enqueue(tx, {
          accountSid: account.sid,
          url: `${receiver.url}/rotating`,
          type: 'test.event',
          resourceSid: `RS-rotating-${n}`,
          data: { n },
        }),
      );
      await receiver.waitFor((received) => received.length >= n);
      return receiver.received[n - 1];
    };
    const first = await send(1);
    new Webhook(account.webhook_secret).verify(first.body, first.headers);
    const rotated = 'whsec_' + Buffer.from('a new secret of 32 bytes, really').toString('base64');
    await store.db
      .updateTable('accounts')
      .set({ webhook_secret: webhookSecrets.seal(account.sid, rotated) })
      .where('sid', '=', account.sid)
      .execute();
    const second = await send(2);
    new Webhook(rotated).verify(second.body, second.headers);
    expect(() => new Webhook(account.webhook_secret).verify(second.body, second.headers)).toThrow();
  });
  it('logs a refused reply at warn level with its reason, and keeps the delivery', async () => {
    const { store, errors, server, receiver } = await setup();
    const { accounts, webhooks } = server.services;
    const account = (await accounts.createAccount('replying')).account;
    receiver.answer = () => ({ status: 200, contentType: 'application/json', body: '{"reply":"a\\u0000"}' });
    const context = { accountSid: account.sid, from: '+14155550100', to: '+14155550123', inboundSid: 'SM-test' };
    const id = await store.transaction((tx) =>
      webhooks.enqueue(tx, {
        accountSid: account.sid,
        url: `${receiver.url}/reply`,
        type: 'message.received',
        resourceSid: 'RS-reply-log',
        data: {},
        onResponse: { handler: REPLY_HANDLER, context },
      }),
    );
    await waitUntil(async () => {
      const row = await store.db.selectFrom('webhook_events').select('status').where('id', '=', id).executeTakeFirst();
      return row?.status === 'delivered';
    });
    const lines = errors.filter((e) => e.msg === 'webhook response refused; the delivery stands');
    expect(lines).toMatchObject([{ level: 40, reason: 'reply 1 of 1 refused: body: must not contain NUL characters' }]);
    expect(
      await store.db.selectFrom('messages').select('sid').where('account_sid', '=', account.sid).execute(),
    ).toEqual([]);
  });
});

describe.each(ENGINES)('a webhook reply that cannot be sent (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  const receiver = useReceiver();

  /**
   * Injects an inbound message to a number whose sms_url answers `answer`; waits until the message.received event
   * is delivered (released with its outcome: an event whose release were rolled back would stay pending, and be
   * delivered again once its lease ran out); returns the event, its attempts, the deliveries and the replies.
   */
  async function inboundAnswered(tag: string, answer: { contentType: string; body: string }) {
    const account = t.account;
    const number = await giveNumber(t, account, { smsUrl: `${receiver.url}/${tag}` });
    receiver.answer = (w) => (w.path === `/${tag}` ? { status: 200, ...answer } : { status: 200 });
    const { data } = await account.client.POST('/v1/sandbox/inbound-messages', {
      body: { from: '+14155550123', to: number, body: 'hi' },
    });
    const db = t.server.services.store.db;
    const eventOf = () =>
      db.selectFrom('webhook_events').selectAll().where('resource_sid', '=', data!.sid).executeTakeFirst();
    await waitUntil(async () => (await eventOf())?.status === 'delivered');
    const event = (await eventOf())!;
    const attempts = await db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', event.id).execute();
    const { data: replies } = await account.client.GET('/v1/messages', {
      params: { query: { direction: 'outbound-reply' } },
    });
    return { event, attempts, deliveries: receiver.all.filter((w) => w.path === `/${tag}`), replies: replies!.data };
  }

  const json = (reply: unknown) => ({ contentType: 'application/json', body: JSON.stringify({ reply }) });

  it('a reply with a NUL character in its body: delivered once, not retried, no reply message', async () => {
    const { event, attempts, deliveries, replies } = await inboundAnswered('nul-body', json('a\u0000'));
    expect(event).toMatchObject({ status: 'delivered', attempts: 1, claims: 0 });
    expect(attempts).toMatchObject([{ attempt: 1, response_status: 200, error: null }]);
    expect(deliveries).toHaveLength(1);
    expect(replies).toEqual([]);
  });

  it('a reply with a NUL character in a media URL: delivered once, not retried, no reply message', async () => {
    const answer = json({ body: 'see this', media_url: ['https://cdn.example.com/a\u0000.png'] });
    const { event, attempts, deliveries, replies } = await inboundAnswered('nul-media', answer);
    expect(event).toMatchObject({ status: 'delivered', attempts: 1, claims: 0 });
    expect(attempts).toMatchObject([{ attempt: 1, response_status: 200, error: null }]);
    expect(deliveries).toHaveLength(1);
    expect(replies).toEqual([]);
  });

  it('several replies, one refused: none is sent (all or nothing), and the delivery is recorded once', async () => {
    const twiml =
      '<Response><Message>first, fine</Message>' +
      '<Message><Body>second</Body><Media>http://10.0.0.1/a.png</Media></Message>' +
      '<Message>third, NUL&#0;</Message></Response>';
    const { event, attempts, deliveries, replies } = await inboundAnswered('mixed', {
      contentType: 'application/xml',
      body: twiml,
    });
    expect(event).toMatchObject({ status: 'delivered', attempts: 1, claims: 0 });
    expect(attempts).toHaveLength(1);
    expect(deliveries).toHaveLength(1);
    expect(replies).toEqual([]);
  });

  it('several valid replies are all sent', async () => {
    const twiml = '<Response><Message>one</Message><Message>two</Message></Response>';
    const { event, replies } = await inboundAnswered('valid', { contentType: 'application/xml', body: twiml });
    expect(event).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(replies.map((m) => m.body).sort()).toEqual(['one', 'two']);
  });

  it('a handler whose statement the database rejects: its writes undone, the delivery kept', async () => {
    const { store, webhooks } = t.server.services;
    const resourceSid = 'RS-savepoint-test';
    // A handler that writes, then runs a statement both engines reject (on PostgreSQL it aborts the transaction).
    webhooks.handleResponses('test.fails-in-the-database', async (tx) => {
      await webhooks.enqueue(tx, {
        accountSid: t.account.sid,
        url: `${receiver.url}/never`,
        type: 'test.written-by-handler',
        resourceSid: `${resourceSid}-written`,
        data: {},
      });
      await sql`select * from no_such_table`.execute(tx.db);
    });
    const id = await store.transaction((tx) =>
      webhooks.enqueue(tx, {
        accountSid: t.account.sid,
        url: `${receiver.url}/handler`,
        type: 'test.event',
        resourceSid,
        data: {},
        onResponse: { handler: 'test.fails-in-the-database', context: {} },
      }),
    );
    const eventOf = () => store.db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
    const event = await waitUntil(async () => {
      const row = await eventOf();
      return row?.status === 'delivered' && row;
    });
    expect(event).toMatchObject({ status: 'delivered', attempts: 1, claims: 0 });
    const attempts = await store.db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', id).execute();
    expect(attempts).toMatchObject([{ attempt: 1, response_status: 200, error: null }]);
    expect(receiver.all.filter((w) => w.path === '/handler')).toHaveLength(1);
    const written = await store.db
      .selectFrom('webhook_events')
      .select('id')
      .where('resource_sid', '=', `${resourceSid}-written`)
      .execute();
    expect(written).toEqual([]);
  });
});
