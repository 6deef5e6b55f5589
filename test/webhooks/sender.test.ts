// The webhook sender thread: attempts go out signed from the thread and come back as the receiver answered;
// when the thread is gone, attempts in flight end as failures (the delivery engine retries them), never hang.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '../../server/webhooks/sender.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${Buffer.from('a test secret of enough length!!').toString('base64')}`;
const options = { timeoutMs: 5000, privateAddresses: 'all' as const };
/** The account's secrets, and the attempt's time (the app's clock's in the server) for its webhook-timestamp. */
const signing = () => ({ secrets: [SECRET], timestamp: Date.now() });

describe('webhook sender thread', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('sends a batch of attempts, each signed, and answers each with its own outcome', async () => {
    const sender = new WebhookSender();
    receiver.answer = (r) =>
      r.path === '/fail'
        ? { status: 503 }
        : { status: 200, body: `{"reply":"${r.json.n}"}`, contentType: 'application/json' };
    try {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, n) =>
          sender.send({
            url: `${receiver.url}/${n % 4 === 0 ? 'fail' : 'ok'}`,
            body: JSON.stringify({ n }),
            ...signing(),
            webhookId: `msg_${n}`,
            options,
          }),
        ),
      );
      results.forEach((result, n) => {
        if (n % 4 === 0) expect(result).toMatchObject({ ok: false, status: 503, error: 'HTTP 503' });
        else
          expect(result).toMatchObject({
            ok: true,
            status: 200,
            body: `{"reply":"${n}"}`,
            contentType: 'application/json',
            error: null,
          });
      });
      const verifier = new Webhook(SECRET);
      const ok = receiver.received.filter((r) => r.path === '/ok');
      expect(ok).toHaveLength(30);
      for (const r of ok)
        expect(verifier.verify(r.body, r.headers)).toEqual({ n: Number(r.headers['webhook-id'].slice(4)) });
    } finally {
      await sender.close();
    }
  });

  it('answers attempts in flight as failed when it is closed, and every later one at once', async () => {
    const sender = new WebhookSender();
    receiver.answer = () => ({ status: 200, delayMs: 2000 });
    const inFlight = sender.send({
      url: `${receiver.url}/slow`,
      body: '{}',
      ...signing(),
      webhookId: 'msg_slow',
      options,
    });
    await receiver.waitFor(() => receiver.all.some((r) => r.path === '/slow'), 5000);
    await sender.close();
    expect(await inFlight).toMatchObject({
      ok: false,
      status: null,
      permanent: false,
      error: 'the webhook sender is closed',
    });
    expect(
      await sender.send({ url: `${receiver.url}/late`, body: '{}', ...signing(), webhookId: 'msg_late', options }),
    ).toMatchObject({ ok: false, permanent: false });
  });
});
