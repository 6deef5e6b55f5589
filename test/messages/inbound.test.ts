// Inbound SMS: delivery to numbers held on the platform, the message.received webhook, replies, and sandbox injection.
import { describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { TestClock } from '../support/clock.js';

describe.each(ENGINES)('inbound messages (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE, contract: true });
  const receiver = useReceiver();

  /** An account holding a number whose sms_url is `${receiver.url}/<tag>`. */
  async function holder(tag: string) {
    const account = await t.newAccount();
    const number = await giveNumber(t, account, { smsUrl: `${receiver.url}/${tag}` });
    return { account, number };
  }

  const inboundOf = async (account: TestAccount, from: string) =>
    (await account.client.GET('/v1/messages', { params: { query: { direction: 'inbound', from } } })).data!.data;

  it('a message to a platform-held number reaches its holder as inbound, with a message.received webhook', async () => {
    const alice = await holder('alice-1');
    const bob = await holder('bob-1');
    const { data: sent } = await alice.account.client.POST('/v1/messages', {
      body: { from: alice.number, to: bob.number, body: 'Hi Bob' },
    });
    await waitForStatus(alice.account.client, sent!.sid, 'delivered');
    const [inbound] = await waitUntil(
      async () => (await inboundOf(bob.account, alice.number)).length === 1 && inboundOf(bob.account, alice.number),
    );
    expect(inbound).toMatchObject({
      account_sid: bob.account.sid,
      from: alice.number,
      to: bob.number,
      body: 'Hi Bob',
      direction: 'inbound',
      status: 'received',
      channel: 'sms',
      price: null,
    });
    expect(inbound.date_sent).not.toBeNull();
    await receiver.waitFor((r) => r.some((w) => w.path === '/bob-1'));
    const webhook = receiver.received.find((w) => w.path === '/bob-1')!;
    expect(webhook.json).toEqual({ type: 'message.received', timestamp: expect.any(String), data: inbound });
    // The sender's account does not see the inbound copy.
    expect(await inboundOf(alice.account, alice.number)).toEqual([]);
    expect(t.violations()).toEqual([]);
  });

  it.each([
    ['JSON', 'application/json', JSON.stringify({ reply: 'Got it, thanks!' }), 'Got it, thanks!'],
    [
      'TwiML',
      'text/xml',
      '<?xml version="1.0"?><Response><Message>On my way &amp; soon</Message></Response>',
      'On my way & soon',
    ],
  ])(
    'sends the %s reply of the webhook back to the sender, who gets no automatic reply in turn',
    async (_kind, contentType, answer, replyText) => {
      const tag = `reply-${_kind}`;
      const alice = await holder(`${tag}-alice`);
      const bob = await holder(`${tag}-bob`);
      receiver.answer = (w) => (w.path.includes(tag) ? { status: 200, contentType, body: answer } : { status: 200 });
      try {
        await alice.account.client.POST('/v1/messages', {
          body: { from: alice.number, to: bob.number, body: 'Are you coming?' },
        });
        // Bob's reply goes out from his number and arrives at Alice's.
        const [reply] = await waitUntil(async () => {
          const list = (
            await bob.account.client.GET('/v1/messages', { params: { query: { direction: 'outbound-reply' } } })
          ).data!.data;
          return list.length === 1 && list[0].status === 'delivered' && list;
        });
        expect(reply).toMatchObject({
          from: bob.number,
          to: alice.number,
          body: replyText,
          direction: 'outbound-reply',
        });
        const [atAlice] = await waitUntil(
          async () => (await inboundOf(alice.account, bob.number)).length === 1 && inboundOf(alice.account, bob.number),
        );
        expect(atAlice.body).toBe(replyText);
        await receiver.waitFor((r) => r.some((w) => w.path === `/${tag}-alice`));
        // Alice's webhook answered with a reply too, but a reply is never answered automatically.
        await new Promise((r) => setTimeout(r, 400));
        const aliceSent = (
          await alice.account.client.GET('/v1/messages', { params: { query: { direction: 'outbound-reply' } } })
        ).data!.data;
        expect(aliceSent).toEqual([]);
      } finally {
        receiver.answer = () => ({ status: 200 });
      }
    },
  );

  it('injects an inbound message from an outside number (sandbox), handled like real inbound traffic', async () => {
    const bob = await holder('inject');
    const { data, response } = await bob.account.client.POST('/v1/sandbox/inbound-messages', {
      body: { from: '+14155550123', to: bob.number, body: 'STOP', media_url: ['https://cdn.example.com/a.png'] },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({
      from: '+14155550123',
      to: bob.number,
      body: 'STOP',
      direction: 'inbound',
      status: 'received',
      channel: 'mms',
      num_media: 1,
    });
    await receiver.waitFor((r) => r.some((w) => w.path === '/inject'));
    expect(receiver.received.find((w) => w.path === '/inject')!.json.data.sid).toBe(data!.sid);
    expect(t.violations()).toEqual([]);
  });

  it('answers 422 to_number_not_owned when injecting to a number the account does not hold', async () => {
    const bob = await holder('inject-other');
    const eve = await t.newAccount();
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: eve.apiKey });
    const { error, response } = await direct.POST('/v1/sandbox/inbound-messages', {
      body: { from: '+14155550123', to: bob.number, body: 'hi' },
    });
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ code: 'to_number_not_owned' });
  });

  it('answers 400 naming body when injecting neither body nor media_url', async () => {
    const bob = await holder('inject-empty');
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: bob.account.apiKey });
    const { error, response } = await direct.POST('/v1/sandbox/inbound-messages', {
      body: { from: '+14155550123', to: bob.number },
    });
    expect(response.status).toBe(400);
    expect(error!.errors!.map((e) => e.field)).toEqual(['body']);
    expect(await inboundOf(bob.account, '+14155550123')).toEqual([]);
  });
});

describe.each(ENGINES)('a delivered report out of place (%s)', (engine) => {
  // The network's steps wait for the server's TestClock, so the message can be changed between two of them.
  const clock = new TestClock();
  const t = useTestServer({ engine, env: FAST_PIPELINE, clock });

  it('leaves a message another report delivered as it is, and still brings it in at its held recipient', async () => {
    const alice = await t.newAccount();
    const bob = await t.newAccount();
    const from = await giveNumber(t, alice);
    const to = await giveNumber(t, bob);
    const { data: sent } = await alice.client.POST('/v1/messages', { body: { from, to, body: 'Hi again' } });
    clock.advance(Number(FAST_PIPELINE.SANDBOX_SENT_DELAY_MS));
    await waitForStatus(alice.client, sent!.sid, 'sent');
    // Another report got there first: the message is delivered when the network's delivered step runs.
    const earlier = '2000-01-01T00:00:00.000Z';
    const { db } = t.server.services.store;
    await db
      .updateTable('messages')
      .set({ status: 'delivered', date_updated: earlier })
      .where('sid', '=', sent!.sid)
      .execute();
    clock.advance(Number(FAST_PIPELINE.SANDBOX_DELIVERY_DELAY_MS));
    const inboundAtBob = async () =>
      (await bob.client.GET('/v1/messages', { params: { query: { direction: 'inbound', from } } })).data!.data;
    const [inbound] = await waitUntil(async () => (await inboundAtBob()).length === 1 && inboundAtBob());
    expect(inbound).toMatchObject({ account_sid: bob.sid, from, to, body: 'Hi again', status: 'received' });
    const { data: message } = await alice.client.GET('/v1/messages/{sid}', { params: { path: { sid: sent!.sid } } });
    expect(message).toMatchObject({ status: 'delivered', date_updated: earlier });
    // The network's job ended with that step.
    await waitUntil(async () => {
      const jobs = await db.selectFrom('jobs').select('id').where('payload', 'like', `%${sent!.sid}%`).execute();
      return jobs.length === 0;
    });
  });
});
