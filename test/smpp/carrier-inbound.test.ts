// Messages in through the SMPP carrier (MO deliver_sm): stored for the number's holder with its sms_url webhook,
// long ones reassembled, GSM-7 and UCS-2 decoded, replies sent back
// through the SMSC; to a number nobody holds, acknowledged and dropped.
import { describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { waitUntil } from '../support/wait.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { freshDestination, useSmppServer, waitForSubmits } from './carrier-support.js';

describe.each(ENGINES)('SMPP carrier: inbound messages (%s)', (engine) => {
  const f = useSmppServer(engine);
  const receiver = useReceiver();

  async function holder(tag: string) {
    const number = await giveNumber(f.t, f.account, { smsUrl: `${receiver.url}/${engine}-${tag}` });
    return number;
  }

  const inboundOf = async (account: TestAccount, from: string) =>
    (await account.client.GET('/v1/messages', { params: { query: { direction: 'inbound', from } } })).data!.data;

  it('stores an MO for the holder of its number and posts it to the sms_url', async () => {
    const to = await holder('single');
    const from = freshDestination();
    await f.smsc.sendMo(from, to, 'Hello platform');
    const [inbound] = await waitUntil(
      async () => (await inboundOf(f.account, from)).length === 1 && inboundOf(f.account, from),
    );
    expect(inbound).toMatchObject({ from, to, body: 'Hello platform', status: 'received', channel: 'sms' });
    await receiver.waitFor((r) => r.some((w) => w.path === `/${engine}-single`));
    const webhook = receiver.received.find((w) => w.path === `/${engine}-single`)!;
    expect(webhook.json).toEqual({ type: 'message.received', timestamp: expect.any(String), data: inbound });
    expect(f.smsc.deliverStatuses.at(-1)).toBe(0);
  });

  it.each([
    ['an alphanumeric sender ID', 'ACME Bank'],
    ['a short code', '72345'],
  ])('stores an MO from %s as it came, and the API shows it', async (_name, from) => {
    const to = await holder(`sender-${from.length}`);
    await f.smsc.sendMo(from, to, 'Your code is 1234');
    const listed = async () =>
      (await f.account.client.GET('/v1/messages', { params: { query: { direction: 'inbound', to } } })).data!.data;
    const [inbound] = await waitUntil(async () => (await listed()).length === 1 && listed());
    expect(inbound).toMatchObject({ from, to, body: 'Your code is 1234', status: 'received' });
    const { data, response } = await f.account.client.GET('/v1/messages/{sid}', {
      params: { path: { sid: inbound.sid } },
    });
    expect(response.status).toBe(200);
    expect(data!.from).toBe(from);
    // Listed by its sender too.
    const bySender = await f.account.client.GET('/v1/messages', { params: { query: { from } } });
    expect(bySender.data!.data.map((m) => m.sid)).toEqual([inbound.sid]);
  });

  it('acknowledges and drops an MO whose sender the API cannot show (empty)', async () => {
    const to = await holder('no-sender');
    // Resolved once the carrier answered the deliver_sm.
    await f.smsc.sendMo('', to, 'from nobody');
    expect(f.smsc.deliverStatuses.at(-1)).toBe(0);
    const { data } = await f.account.client.GET('/v1/messages', { params: { query: { direction: 'inbound', to } } });
    expect(data!.data).toEqual([]);
  });

  it.each([
    ['GSM-7', 'Long message in parts. '.repeat(12), false],
    ['UCS-2', 'Длинное сообщение по частям. '.repeat(6), true],
  ])('reassembles a concatenated %s MO into one message', async (_name, body, ucs2) => {
    const to = await holder(`concat-${_name}`);
    const from = freshDestination();
    await f.smsc.sendMo(from, to, body, { ucs2, splitAt: 60 });
    const [inbound] = await waitUntil(
      async () => (await inboundOf(f.account, from)).length === 1 && inboundOf(f.account, from),
    );
    expect(inbound.body).toBe(body);
    await receiver.waitFor((r) => r.filter((w) => w.path === `/${engine}-concat-${_name}`).length === 1);
  });

  it('stores an MO holding a NUL character without it, and acknowledges it (no redelivery loop)', async () => {
    const to = await holder('nul');
    const from = freshDestination();
    await f.smsc.sendMo(from, to, 'before\u0000after', { ucs2: true });
    const [inbound] = await waitUntil(
      async () => (await inboundOf(f.account, from)).length === 1 && inboundOf(f.account, from),
    );
    expect(inbound.body).toBe('beforeafter');
    expect(f.smsc.deliverStatuses.at(-1)).toBe(0);
  });

  it('sends the webhook reply back through the SMSC', async () => {
    const tag = 'reply';
    receiver.answer = (w) =>
      w.path === `/${engine}-${tag}`
        ? { status: 200, contentType: 'application/json', body: JSON.stringify({ reply: 'Thanks!' }) }
        : { status: 200 };
    try {
      const to = await holder(tag);
      const from = freshDestination();
      await f.smsc.sendMo(from, to, 'Are you there?');
      const [reply] = await waitForSubmits(f.smsc, from);
      expect(reply).toMatchObject({ sourceAddr: to.slice(1), text: 'Thanks!' });
    } finally {
      receiver.answer = () => ({ status: 200 });
    }
  });

  it('acknowledges a receipt for a message it does not know', async () => {
    const before = f.smsc.deliverStatuses.length;
    await f.smsc.sendReceipt('no-such-id', 'DELIVRD');
    expect(f.smsc.deliverStatuses.slice(before)).toEqual([0]);
  });

  it('acknowledges and drops an MO to a number nobody holds', async () => {
    const before = f.smsc.deliverStatuses.length;
    await f.smsc.sendMo(freshDestination(), '+12125550300', 'Anyone?');
    expect(f.smsc.deliverStatuses.slice(before)).toEqual([0]);
  });
});
