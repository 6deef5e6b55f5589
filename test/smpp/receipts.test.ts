// Delivery receipts: the TLV form, the text form, and deliver_sm that are not receipts.
import { describe, expect, it } from 'vitest';
import { parseReceipt } from '../../server/carrier/smpp/receipts.js';
import type { DeliverSm } from '../../server/carrier/smpp/session.js';
import { readiness, sessionForTest, smscForTest } from './session-support.js';

function deliverSm(fields: Partial<DeliverSm> & { text?: string }): DeliverSm {
  const { text = '', ...rest } = fields;
  return {
    sourceAddr: '15550001111',
    sourceTon: 1,
    destinationAddr: '15550009999',
    destTon: 1,
    esmClass: 0x04,
    dataCoding: 0,
    shortMessage: Buffer.from(text, 'latin1'),
    ...rest,
  };
}

const textForm = (id: string, stat: string, err: string) =>
  `id:${id} sub:001 dlvrd:001 submit date:2611252301 done date:2611252302 stat:${stat} err:${err} text:Hello`;

describe('parseReceipt', () => {
  it('reads the TLVs receipted_message_id and message_state', () => {
    expect(parseReceipt(deliverSm({ receiptedMessageId: 'abc123', messageState: 2 }))).toEqual({
      messageId: 'abc123',
      state: 'delivered',
    });
    const states = { 1: 'enroute', 3: 'expired', 4: 'deleted', 5: 'undelivered', 6: 'accepted', 7: 'unknown' };
    for (const [value, state] of Object.entries({ ...states, 8: 'rejected' })) {
      expect(parseReceipt(deliverSm({ receiptedMessageId: 'x', messageState: Number(value) }))?.state).toBe(state);
    }
  });

  it.each([
    ['DELIVRD', 'delivered'],
    ['UNDELIV', 'undelivered'],
    ['EXPIRED', 'expired'],
    ['REJECTD', 'rejected'],
    ['DELETED', 'deleted'],
    ['UNKNOWN', 'unknown'],
    ['ACCEPTD', 'accepted'],
    ['ENROUTE', 'enroute'],
  ])('reads the text form stat:%s as %s, with the err field', (stat, state) => {
    expect(parseReceipt(deliverSm({ text: textForm('0a1b2c', stat, '042') }))).toEqual({
      messageId: '0a1b2c',
      state,
      errorCode: '042',
    });
  });

  it('prefers the TLVs to the text when both are there', () => {
    const pdu = deliverSm({
      text: textForm('text-id', 'UNDELIV', '001'),
      receiptedMessageId: 'tlv-id',
      messageState: 2,
    });
    expect(parseReceipt(pdu)).toEqual({ messageId: 'tlv-id', state: 'delivered', errorCode: '001' });
  });

  it('reads a text form in lower case and an intermediate notification (esm_class 0x20)', () => {
    expect(parseReceipt(deliverSm({ text: 'id:77 stat:delivrd err:000' }))).toMatchObject({ state: 'delivered' });
    expect(parseReceipt(deliverSm({ esmClass: 0x20, text: 'id:77 stat:ENROUTE err:000' }))).toMatchObject({
      messageId: '77',
      state: 'enroute',
    });
  });

  it('reads a UCS-2 receipt behind a UDH of odd length, and ignores an odd last byte', () => {
    const text = Buffer.from('id:88 stat:DELIVRD err:000', 'utf16le').swap16();
    const udh = Buffer.from([0x04, 0x24, 0x02, 0x00, 0x00]);
    const odd = Buffer.concat([udh, text, Buffer.from([0x41])]);
    expect(parseReceipt(deliverSm({ esmClass: 0x44, dataCoding: 8, shortMessage: odd }))).toEqual({
      messageId: '88',
      state: 'delivered',
      errorCode: '000',
    });
  });

  it('takes an intermediate notification that names no state for a message on its way, not a failure', () => {
    expect(parseReceipt(deliverSm({ esmClass: 0x20, receiptedMessageId: '99' }))).toEqual({
      messageId: '99',
      state: 'enroute',
    });
    expect(parseReceipt(deliverSm({ receiptedMessageId: '99' }))).toEqual({ messageId: '99', state: 'unknown' });
  });

  it('answers null for a deliver_sm that is not a receipt (an MO), even one that reads like a receipt', () => {
    expect(parseReceipt(deliverSm({ esmClass: 0, text: textForm('1', 'DELIVRD', '000') }))).toBeNull();
    expect(parseReceipt(deliverSm({ esmClass: 0x40, text: 'hello' }))).toBeNull();
  });

  it('answers null for a receipt that names no message', () => {
    expect(parseReceipt(deliverSm({ text: 'stat:DELIVRD err:000' }))).toBeNull();
  });

  it('reads the receipts the loopback SMSC sends through a session (text and TLVs together)', async () => {
    const smsc = await smscForTest();
    const { session, delivered } = sessionForTest(smsc.url());
    await readiness(session);
    await smsc.sendReceipt('smsc-9', 'DELIVRD');
    await smsc.sendReceipt('smsc-10', 'UNDELIV', '011');
    expect(delivered.map(parseReceipt)).toEqual([
      { messageId: 'smsc-9', state: 'delivered', errorCode: '000' },
      { messageId: 'smsc-10', state: 'undelivered', errorCode: '011' },
    ]);
  });
});
