import { describe, expect, it } from 'vitest';
import { part, sessionForTest, smscForTest, until } from './session-support.js';

describe('SMPP session', () => {
  it('binds as transceiver and reports ready', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await until(() => session.readiness().ready, 5000, 'bind');
    expect(smsc.binds).toBe(1);
  });

  it('submits and settles accepted with the message_id the SMSC answered', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await until(() => session.readiness().ready);
    const result = await session.submit({ ...part('hi there'), validityPeriod: '000001000000000R' });
    expect(result).toEqual({ kind: 'accepted', messageId: 'smsc-1' });
    expect(smsc.submits[0]).toMatchObject({
      sourceAddr: '15550009999',
      destinationAddr: '15550001111',
      registeredDelivery: 1,
      validityPeriod: '000001000000000R',
      text: 'hi there',
    });
  });

  it('answers not bound right now as retry, naming the state', async () => {
    const smsc = await smscForTest();
    await smsc.stop();
    const { session } = sessionForTest(smsc.url());
    const result = await session.submit(part());
    expect(result).toMatchObject({ kind: 'retry', commandStatus: null });
  });

  it('hands a deliver_sm to onDeliver and answers ESME_ROK after it resolves', async () => {
    const smsc = await smscForTest();
    const { session, delivered } = sessionForTest(smsc.url());
    await until(() => session.readiness().ready);
    await smsc.sendMo('+15550001111', '+15550009999', 'hello back');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ sourceAddr: '15550001111', destinationAddr: '15550009999', esmClass: 0 });
    expect(delivered[0].shortMessage.toString('latin1')).toBe('hello back');
    expect(smsc.deliverStatuses).toEqual([0]);
  });

  it('binds again by itself after the SMSC restarts, and later submits are accepted', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await until(() => session.readiness().ready);
    await smsc.stop();
    await until(() => !session.readiness().ready, 2000, 'the drop');
    await smsc.restart();
    await until(() => session.readiness().ready, 5000, 'the rebind');
    expect(smsc.binds).toBe(2);
    expect(await session.submit(part())).toMatchObject({ kind: 'accepted' });
  });
});
