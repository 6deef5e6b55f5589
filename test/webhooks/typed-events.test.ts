// The webhooks are typed in the spec (components/schemas/WebhookEvent, callbacks on the operations that take a
// callback URL) and the client's verifyWebhook checks a real delivery's Standard Webhooks signature and returns the
// event, typed: checked here on deliveries of the real server, beside the standardwebhooks package.
import { Webhook } from 'standardwebhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../client/index.js';
import type { components } from '../../generated/openapi.js';
import { loadSpec } from '../../server/http/spec.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { createSession, pair, participant, provisionPool } from '../support/proxy.js';

/** Every event type the spec declares, from the members of WebhookEvent. */
function specEventTypes(): Set<string> {
  const schemas = loadSpec().document.components.schemas;
  const members = schemas.WebhookEvent.oneOf as { $ref: string }[];
  return new Set(members.flatMap((m) => schemas[m.$ref.split('/').pop()!].properties.type.enum as string[]));
}

describe.each(ENGINES)('typed webhooks and verifyWebhook (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  const receiver = useReceiver();
  const declared = specEventTypes();

  const deliveries = (path: string) => receiver.received.filter((w) => w.path === path);

  it('verifies every status callback of a message and returns it as a typed message event', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'typed', status_callback: `${receiver.url}/typed` },
    });
    await waitForStatus(account.client, data!.sid, 'delivered');
    await receiver.waitFor(() => deliveries('/typed').length === 3);

    const types: string[] = [];
    for (const delivery of deliveries('/typed')) {
      const event = await verifyWebhook(delivery.body, delivery.headers, account.webhookSecret);
      expect(event).toEqual(new Webhook(account.webhookSecret).verify(delivery.body, delivery.headers));
      expect(declared.has(event.type)).toBe(true);
      types.push(event.type);
      if (event.type === 'message.delivered') {
        expectTypeOf(event.data).toEqualTypeOf<components['schemas']['Message']>();
        expect(event.data).toMatchObject({ sid: data!.sid, status: 'delivered', body: 'typed' });
      }
    }
    expect(types).toEqual(['message.sending', 'message.sent', 'message.delivered']);
  });

  it('types the proxy events of a session, each one declared by the spec', async () => {
    const account = await t.newAccount();
    await provisionPool(t, account, 2);
    const session = await createSession(account.client, {
      mode: 'message-only',
      callback_url: `${receiver.url}/proxy`,
      participants: pair(participant(1), participant(2)),
    });
    await account.client.POST('/v1/sandbox/inbound-messages', {
      body: { from: participant(1), to: session.participants[0].proxy_identifier, body: 'on my way' },
    });
    await account.client.DELETE('/v1/proxy/sessions/{sid}', { params: { path: { sid: session.sid } } });
    await receiver.waitFor(() => deliveries('/proxy').some((w) => w.json.type === 'proxy.session.closed'));

    const events: WebhookEvent[] = [];
    for (const delivery of deliveries('/proxy')) {
      events.push(await verifyWebhook(delivery.body, delivery.headers, account.webhookSecret));
    }
    expect(events.every((e) => declared.has(e.type))).toBe(true);
    const closed = events.find((e) => e.type === 'proxy.session.closed');
    if (closed?.type !== 'proxy.session.closed') throw new Error('no proxy.session.closed event');
    expectTypeOf(closed.data).toEqualTypeOf<components['schemas']['ProxySession']>();
    expect(closed.data).toMatchObject({ sid: session.sid, status: 'closed', closed_reason: 'ended' });
    expect(events.filter((e) => e.type === 'proxy.interaction.created')).toHaveLength(1);
  });

  it('refuses a changed body, another secret, a stale or future timestamp and missing headers', async () => {
    const account = await t.newAccount();
    const other = await t.newAccount();
    const from = await giveNumber(t, account);
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'refused', status_callback: `${receiver.url}/refused` },
    });
    await waitForStatus(account.client, data!.sid, 'delivered');
    await receiver.waitFor(() => deliveries('/refused').length > 0);
    const [delivery] = deliveries('/refused');
    const secret = account.webhookSecret;
    const refused = async (body: string, headers: Record<string, string>, key: string, now?: number) => {
      const error = await verifyWebhook(body, headers, key, { now }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      return (error as Error).message;
    };
    const changed = delivery.body.replace('refused', 'accepted');
    expect(await refused(changed, delivery.headers, secret)).toBe('no signature matches the secret');
    expect(await refused(delivery.body, delivery.headers, other.webhookSecret)).toBe('no signature matches the secret');
    const signedAt = Number(delivery.headers['webhook-timestamp']) * 1000;
    expect(await refused(delivery.body, delivery.headers, secret, signedAt + 301_000)).toMatch(/more than 300 s/);
    expect(await refused(delivery.body, delivery.headers, secret, signedAt - 301_000)).toMatch(/more than 300 s/);
    const { 'webhook-signature': _dropped, ...unsigned } = delivery.headers;
    expect(await refused(delivery.body, unsigned, secret)).toBe('missing webhook-id, -timestamp or -signature');
    // Within the tolerance it is accepted, from a Fetch API Headers object as from Node's plain headers.
    const fetchHeaders = new Headers(delivery.headers);
    await expect(
      verifyWebhook(delivery.body, fetchHeaders, secret, { now: signedAt + 299_000 }),
    ).resolves.toMatchObject({ type: 'message.sending', data: { sid: data!.sid } });
  });

  it('accepts a webhook carrying several signatures when one matches (a secret in rotation)', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'rotating', status_callback: `${receiver.url}/rotating` },
    });
    await waitForStatus(account.client, data!.sid, 'delivered');
    await receiver.waitFor(() => deliveries('/rotating').length === 3);
    const [delivery] = deliveries('/rotating');
    const twice = {
      ...delivery.headers,
      'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${delivery.headers['webhook-signature']}`,
    };
    await expect(verifyWebhook(delivery.body, twice, account.webhookSecret)).resolves.toMatchObject({
      type: 'message.sending',
      data: { sid: data!.sid },
    });
    expect(new Webhook(account.webhookSecret).verify(delivery.body, twice)).toMatchObject({ type: 'message.sending' });
  });
});
