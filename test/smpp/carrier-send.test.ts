// Messages out through the SMPP carrier: submit_sm as the SMSC receives it, receipts settling the message, the
// status callbacks following in order, long GSM-7 and UCS-2 messages as concatenated parts, throttling, errors.
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { freshDestination, submitsTo, useSmppServer, waitForSubmits } from './carrier-support.js';

const ESME_RTHROTTLED = 0x58;
const ESME_RINVDSTADR = 0x0b;

describe.each(ENGINES)('SMPP carrier: sending (%s)', (engine) => {
  const f = useSmppServer(engine);
  const receiver = useReceiver();

  async function send(body: string, extra: { status_callback?: string; validity_period?: number } = {}) {
    const from = await giveNumber(f.t, f.account);
    const to = freshDestination();
    const { data, error } = await f.account.client.POST('/v1/messages', { body: { from, to, body, ...extra } });
    if (!data) throw new Error(`send failed: ${JSON.stringify(error)}`);
    return { from, to, sid: data.sid };
  }

  const callbacksOf = (path: string) =>
    receiver.received.filter((w) => w.path === path).map((w) => [w.json.type, w.json.data.error_code]);

  it('submits the message as submit_sm (E.164 without +, TON/NPI 1/1, receipt asked) and marks it sent', async () => {
    const { from, to, sid } = await send('Hello from SMPP', { validity_period: 600 });
    const [submit] = await waitForSubmits(f.smsc, to);
    expect(submit).toMatchObject({
      sourceAddr: from.slice(1),
      sourceTon: 1,
      sourceNpi: 1,
      destinationAddr: to.slice(1),
      destTon: 1,
      destNpi: 1,
      esmClass: 0,
      dataCoding: 0,
      registeredDelivery: 1,
      text: 'Hello from SMPP',
    });
    // Relative validity: what is left of the 600 s (YYMMDDhhmmss000R).
    expect(submit.validityPeriod).toMatch(/^00000000(09|10)\d{2}000R$/);
    const sent = await waitForStatus(f.account.client, sid, 'sent');
    expect(sent).toMatchObject({ price: null, num_segments: 1 });
    expect(sent.date_sent).not.toBeNull();
  });

  it.each([
    ['DELIVRD', 'delivered', null],
    ['UNDELIV', 'undelivered', 'SMPP_UNDELIV'],
    ['EXPIRED', 'undelivered', 'SMPP_EXPIRED'],
    ['REJECTD', 'failed', 'SMPP_REJECTD'],
  ] as const)('a %s receipt ends the message %s (error %s), callbacks in order', async (stat, status, code) => {
    const path = `/cb-${engine}-${stat}`;
    const { to, sid } = await send(`Receipt ${stat}`, { status_callback: `${receiver.url}${path}` });
    const [submit] = await waitForSubmits(f.smsc, to);
    await waitForStatus(f.account.client, sid, 'sent');
    await f.smsc.sendReceipt(submit.messageId!, stat);
    const message = await waitForStatus(f.account.client, sid, status);
    expect(message.error_code).toBe(code);
    if (code) expect(message.error_message).toContain(stat);
    await receiver.waitFor(() => callbacksOf(path).length === 3);
    expect(callbacksOf(path)).toEqual([
      ['message.sending', null],
      ['message.sent', null],
      [`message.${status}`, code],
    ]);
  });

  it.each([
    ['GSM-7', 'a'.repeat(400), 0, 153],
    ['UCS-2', 'Привет, мир! '.repeat(14), 8, 67],
  ])('sends a long %s message as concatenated parts, delivered once every part is', async (_n, body, coding, size) => {
    const { to, sid } = await send(body);
    const parts = await waitForSubmits(f.smsc, to, 3);
    expect(parts).toHaveLength(3);
    const reference = parts[0].concat!.reference;
    parts.forEach((part, i) => {
      expect(part).toMatchObject({ dataCoding: coding, esmClass: 0x40 });
      expect(part.concat).toEqual({ reference, total: 3, index: i + 1 });
      expect([...part.shortMessage.subarray(0, 6)]).toEqual([0x05, 0x00, 0x03, reference, 3, i + 1]);
    });
    expect(parts.map((p) => p.text).join('')).toBe(body);
    expect([...parts[0].text]).toHaveLength(size);
    const message = await waitForStatus(f.account.client, sid, 'sent');
    expect(message.num_segments).toBe(3);
    await f.smsc.sendReceipt(parts[0].messageId!, 'DELIVRD');
    await f.smsc.sendReceipt(parts[2].messageId!, 'DELIVRD');
    // Two of three: still sent.
    const read = await f.account.client.GET('/v1/messages/{sid}', { params: { path: { sid } } });
    expect(read.data!.status).toBe('sent');
    await f.smsc.sendReceipt(parts[1].messageId!, 'DELIVRD');
    await waitForStatus(f.account.client, sid, 'delivered');
  });

  it('gives a receipt to the part still waiting for it when the SMSC reuses a message id', async () => {
    const before = await send('Before the SMSC counted from 1 again');
    const [first] = await waitForSubmits(f.smsc, before.to);
    await waitForStatus(f.account.client, before.sid, 'sent');
    f.smsc.reuseIdsFrom(Number(first.messageId!.slice('smsc-'.length)));
    const after = await send('After');
    const [second] = await waitForSubmits(f.smsc, after.to);
    expect(second.messageId).toBe(first.messageId);
    await waitForStatus(f.account.client, after.sid, 'sent');
    // Both parts wait for a receipt under one id: the newer is meant.
    await f.smsc.sendReceipt(second.messageId!, 'DELIVRD');
    await waitForStatus(f.account.client, after.sid, 'delivered');
    const { data } = await f.account.client.GET('/v1/messages/{sid}', { params: { path: { sid: before.sid } } });
    expect(data!.status).toBe('sent');
  });

  it('delivers a long message when the receipts of all its parts arrive at once', async () => {
    const { to, sid } = await send('b'.repeat(700));
    const parts = await waitForSubmits(f.smsc, to, 5);
    await waitForStatus(f.account.client, sid, 'sent');
    await Promise.all(parts.map((part) => f.smsc.sendReceipt(part.messageId!, 'DELIVRD')));
    await waitForStatus(f.account.client, sid, 'delivered');
  });

  it('sends a message the SMSC throttles (ESME_RTHROTTLED) later, once it accepts', async () => {
    let throttled = 0;
    f.smsc.respondWith(() => (throttled++ < 3 ? { status: ESME_RTHROTTLED } : { status: 0 }));
    const { to, sid } = await send('Throttled at first');
    await waitForStatus(f.account.client, sid, 'sent');
    expect(submitsTo(f.smsc, to)).toHaveLength(4);
  });

  it('fails a message the SMSC refuses for good, with the status name as error_code', async () => {
    f.smsc.respondWith(() => ({ status: ESME_RINVDSTADR }));
    const { to, sid } = await send('To nowhere');
    const message = await waitForStatus(f.account.client, sid, 'failed');
    expect(message.error_code).toBe('ESME_RINVDSTADR');
    expect(message.error_message).toContain('ESME_RINVDSTADR');
    expect(submitsTo(f.smsc, to)).toHaveLength(1);
  });
});
