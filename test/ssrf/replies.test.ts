// A webhook's reply gives URLs too (the reply's media): the same policy decides, and a refused reply is not sent.
// Media URLs are stored, never fetched, so nothing here leaves loopback.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';
import { useReceiver } from '../support/webhook-receiver.js';

describe.each(ENGINES)('URLs in webhook replies (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  const receiver = useReceiver();

  /** Injects an inbound message to a number whose sms_url answers `media` as a reply; the replies it caused. */
  async function replyWithMedia(tag: string, media: string) {
    const account = t.account;
    const number = await giveNumber(t, account, { smsUrl: `${receiver.url}/${tag}` });
    const body = JSON.stringify({ reply: { body: 'see this', media_url: [media] } });
    receiver.answer = (w) =>
      w.path === `/${tag}` ? { status: 200, contentType: 'application/json', body } : { status: 200 };
    const { data } = await account.client.POST('/v1/sandbox/inbound-messages', {
      body: { from: '+14155550123', to: number, body: 'hi' },
    });
    // The reply is decided in the transaction that records the delivery, so once delivered it is there or not.
    const db = t.server.services.store.db;
    await waitUntil(async () => {
      const event = await db
        .selectFrom('webhook_events')
        .select('status')
        .where('resource_sid', '=', data!.sid)
        .executeTakeFirst();
      return event?.status === 'delivered';
    });
    const { data: replies } = await account.client.GET('/v1/messages', {
      params: { query: { direction: 'outbound-reply' } },
    });
    return replies!.data;
  }

  it('sends a reply whose media URL is public', async () => {
    const replies = await replyWithMedia('public', 'https://cdn.example.com/a.png');
    expect(replies.map((m) => m.body)).toEqual(['see this']);
  });

  it('does not send a reply whose media URL is a private address', async () => {
    expect(await replyWithMedia('private', 'http://10.0.0.1/a.png')).toEqual([]);
  });
});
