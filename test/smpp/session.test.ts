// The SMPP session against the loopback SMSC: bind, submit outcomes, the window, TPS, timeouts, drops and
// reconnects, deliver_sm acknowledgement, enquire_link and unbind.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseSmppUrl } from '../../server/carrier/smpp/url.js';
import type { ReceivedSubmit } from '../support/smsc.js';
import { waitUntil } from '../support/wait.js';
import { part, readiness, sessionForTest, smscForTest } from './session-support.js';

const ESME_RBINDFAIL = 0x0d;
const ESME_RMSGQFUL = 0x14;
const ESME_RINVDSTADR = 0x0b;
const ESME_RTHROTTLED = 0x58;
const ESME_RX_T_APPN = 0x64;

describe('SMPP session: bind', () => {
  it('binds as transceiver and reports ready', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await readiness(session);
    expect(smsc.binds).toBe(1);
  });

  it('is not ready after a wrong password, with the SMSC status as the reason, and keeps trying', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url('test', 'wrong'));
    await waitUntil(async () => session.readiness().reason === 'bind refused: ESME_RINVPASWD', 5000, 'refusal');
    expect(session.readiness().ready).toBe(false);
    expect(smsc.binds).toBe(0);
    expect(await session.submit(part())).toEqual({
      kind: 'retry',
      commandStatus: null,
      reason: 'not bound: bind refused: ESME_RINVPASWD',
    });
  });

  it('binds by itself once the SMSC accepts binds again', async () => {
    const smsc = await smscForTest();
    smsc.refuseBinds(ESME_RBINDFAIL);
    const { session } = sessionForTest(smsc.url());
    await waitUntil(async () => session.readiness().reason === 'bind refused: ESME_RBINDFAIL', 5000, 'refusal');
    smsc.refuseBinds(null);
    await readiness(session);
    expect(smsc.binds).toBe(1);
    expect(await session.submit(part())).toMatchObject({ kind: 'accepted' });
  });

  it('backs off between failed binds: doubling delays, not a tight loop', async () => {
    const smsc = await smscForTest();
    smsc.refuseBinds(ESME_RBINDFAIL);
    sessionForTest(smsc.url(), { reconnectMinMs: 50, reconnectMaxMs: 400 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Without backoff there would be dozens; after waits of 25-50, 50-100, 100-200, then 200-400 ms each
    // (jitter keeps half to all of the doubling delay), 1.5 s hold between 5 and 10 attempts.
    const refusals = smsc.refusedBinds;
    expect(refusals).toBeGreaterThanOrEqual(5);
    expect(refusals).toBeLessThanOrEqual(10);
  });

  it('never logs the password, at any level', async () => {
    const smsc = await smscForTest({ password: 's3cr3tpw' });
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const wrong = sessionForTest(smsc.url('test', 'wr0ngpw'), { logger });
    await waitUntil(async () => wrong.session.readiness().reason?.startsWith('bind refused'), 5000, 'refusal');
    const right = sessionForTest(smsc.url(), { logger });
    await readiness(right.session);
    await smsc.stop();
    await readiness(right.session, false);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toMatch(/s3cr3tpw|wr0ngpw/);
  });

  it('reads smpp:// and smpps:// URLs and names what is wrong with a bad one', () => {
    expect(parseSmppUrl('smpp://sys%40id:p%3Ass@smsc.example:2776')).toEqual({
      host: 'smsc.example',
      port: 2776,
      tls: false,
      systemId: 'sys@id',
      password: 'p:ss',
    });
    expect(parseSmppUrl('smpps://id:pw@[::1]')).toMatchObject({ host: '::1', port: 3550, tls: true });
    expect(parseSmppUrl('smpp://id:pw@10.0.0.1')).toMatchObject({ port: 2775 });
    expect(() => parseSmppUrl('http://id:pw@host:1')).toThrow('must start with smpp:// or smpps://');
    expect(() => parseSmppUrl('smpp://host:2775')).toThrow('names no system_id');
    expect(() => parseSmppUrl('nonsense')).toThrow('is not a URL');
    expect(() => parseSmppUrl('smpp://id:p%zz@host')).toThrow('badly percent-encoded');
  });

  it('refuses a window below one and a TPS of zero', () => {
    expect(() => sessionForTest('smpp://id:pw@127.0.0.1:1', { window: 0 })).toThrow('must be positive');
    expect(() => sessionForTest('smpp://id:pw@127.0.0.1:1', { tps: 0 })).toThrow('must be positive');
  });
});

describe('SMPP session: submit', () => {
  it('settles accepted with the message_id the SMSC answered, the fields passed on', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await readiness(session);
    const result = await session.submit({ ...part('hi there'), validityPeriod: '000001000000000R' });
    expect(result).toEqual({ kind: 'accepted', messageId: 'smsc-1' });
    expect(smsc.submits[0]).toMatchObject({
      sourceAddr: '15550009999',
      sourceTon: 1,
      sourceNpi: 1,
      destinationAddr: '15550001111',
      destTon: 1,
      destNpi: 1,
      esmClass: 0,
      dataCoding: 0,
      registeredDelivery: 1,
      validityPeriod: '000001000000000R',
      text: 'hi there',
    });
  });

  it('answers retry with the status for ESME_RTHROTTLED and ESME_RMSGQFUL', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await readiness(session);
    smsc.respondWith(() => ({ status: ESME_RTHROTTLED }));
    expect(await session.submit(part())).toEqual({
      kind: 'retry',
      commandStatus: ESME_RTHROTTLED,
      reason: 'ESME_RTHROTTLED',
    });
    smsc.respondWith(() => ({ status: ESME_RMSGQFUL }));
    expect(await session.submit(part())).toEqual({
      kind: 'retry',
      commandStatus: ESME_RMSGQFUL,
      reason: 'ESME_RMSGQFUL',
    });
  });

  it('answers rejected with the status and its name for a permanent error such as ESME_RINVDSTADR', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await readiness(session);
    smsc.respondWith(() => ({ status: ESME_RINVDSTADR }));
    expect(await session.submit(part())).toEqual({
      kind: 'rejected',
      commandStatus: ESME_RINVDSTADR,
      statusName: 'ESME_RINVDSTADR',
    });
    smsc.respondWith(() => ({ status: 0x4242 }));
    expect(await session.submit(part())).toMatchObject({ kind: 'rejected', statusName: '0x00004242' });
  });

  it('answers retry at once while not bound', async () => {
    const smsc = await smscForTest();
    await smsc.stop();
    const { session } = sessionForTest(smsc.url());
    expect(await session.submit(part())).toMatchObject({ kind: 'retry', commandStatus: null });
  });

  it('never has more than the window outstanding: 100 submits, window 5, all accepted', async () => {
    const smsc = await smscForTest();
    smsc.respondWith(() => ({ status: 0, delayMs: 5 }));
    const { session } = sessionForTest(smsc.url(), { window: 5 });
    await readiness(session);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => session.submit(part(`m${i}`))));
    expect(results.every((r) => r.kind === 'accepted')).toBe(true);
    expect(new Set(results.map((r) => (r.kind === 'accepted' ? r.messageId : ''))).size).toBe(100);
    expect(smsc.submits).toHaveLength(100);
    expect(smsc.maxOutstanding).toBe(5);
  });

  it('honours the TPS limit: 40 submits at 20 per second take about two seconds', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url(), { tps: 20, window: 50 });
    await readiness(session);
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 40 }, () => session.submit(part())));
    const elapsed = performance.now() - started;
    expect(results.every((r) => r.kind === 'accepted')).toBe(true);
    // 39 gaps of 50 ms after the first; generous above for a loaded machine.
    expect(elapsed).toBeGreaterThanOrEqual(1850);
    expect(elapsed).toBeLessThan(4000);
  });

  it('settles timeout when the response comes after the timeout, and ignores the late response', async () => {
    const smsc = await smscForTest();
    smsc.respondWith(() => ({ status: 0, delayMs: 300 }));
    const { session } = sessionForTest(smsc.url(), { responseTimeoutMs: 100 });
    await readiness(session);
    expect(await session.submit(part('slow'))).toEqual({ kind: 'timeout' });
    smsc.respondWith(() => ({ status: 0 }));
    // The late smsc-1 arrives in the meantime; the next submit gets its own answer and the link stays up.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await session.submit(part('fast'))).toEqual({ kind: 'accepted', messageId: 'smsc-2' });
    expect(session.readiness().ready).toBe(true);
    expect(smsc.binds).toBe(1);
  });

  it('frees the window slot of a submit that timed out', async () => {
    const smsc = await smscForTest();
    const loseOne = (s: ReceivedSubmit) => (s.text === 'lost' ? 'never' : { status: 0 });
    smsc.respondWith(loseOne);
    const { session } = sessionForTest(smsc.url(), { window: 1, responseTimeoutMs: 100 });
    await readiness(session);
    const [lost, next] = await Promise.all([session.submit(part('lost')), session.submit(part('next'))]);
    expect(lost).toEqual({ kind: 'timeout' });
    expect(next).toMatchObject({ kind: 'accepted' });
  });
});

describe('SMPP session: the SMSC goes away', () => {
  it('settles submits in flight as timeout, queued ones as retry; rebinds by itself, accepts later ones', async () => {
    const smsc = await smscForTest();
    smsc.respondWith(() => 'never');
    const { session } = sessionForTest(smsc.url(), { window: 2, responseTimeoutMs: 5000 });
    await readiness(session);
    const pending = Array.from({ length: 5 }, (_, i) => session.submit(part(`m${i}`)));
    await smsc.waitFor(() => smsc.submits.length === 2, 2000);
    await smsc.stop();
    const results = await Promise.all(pending);
    expect(results.slice(0, 2)).toEqual([{ kind: 'timeout' }, { kind: 'timeout' }]);
    for (const result of results.slice(2)) expect(result).toMatchObject({ kind: 'retry', commandStatus: null });
    expect(session.readiness()).toEqual({ ready: false, reason: 'connection lost' });

    smsc.respondWith(() => ({ status: 0 }));
    await smsc.restart();
    await readiness(session);
    expect(smsc.binds).toBe(2);
    expect(await session.submit(part('after'))).toMatchObject({ kind: 'accepted' });
  });

  it('drops a link whose enquire_link goes unanswered and binds again', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url(), { enquireLinkMs: 100, responseTimeoutMs: 150 });
    await readiness(session);
    smsc.muteEnquireLinks(true);
    await waitUntil(async () => session.readiness().reason === 'enquire_link unanswered', 3000, 'the dead link');
    smsc.muteEnquireLinks(false);
    await readiness(session);
    expect(smsc.binds).toBeGreaterThanOrEqual(2);
  });
});

describe('SMPP session: keep-alive, deliver_sm and unbind', () => {
  it('sends enquire_link on schedule and stays bound while they are answered', async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url(), { enquireLinkMs: 100 });
    await readiness(session);
    await new Promise((resolve) => setTimeout(resolve, 550));
    expect(smsc.enquireLinks).toBeGreaterThanOrEqual(4);
    expect(smsc.enquireLinks).toBeLessThanOrEqual(6);
    expect(session.readiness().ready).toBe(true);
    expect(smsc.binds).toBe(1);
  });

  it("answers the SMSC's enquire_link", async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await readiness(session);
    expect(await smsc.sendEnquireLink()).toBe(0);
  });

  it("answers the SMSC's unbind, closes the link, and binds again", async () => {
    const smsc = await smscForTest();
    const { session } = sessionForTest(smsc.url());
    await readiness(session);
    expect(await smsc.sendUnbind()).toBe(0);
    await waitUntil(async () => smsc.binds === 2 && session.readiness().ready, 5000, 'the rebind');
  });

  it('hands a deliver_sm to onDeliver with its fields', async () => {
    const smsc = await smscForTest();
    const { session, delivered } = sessionForTest(smsc.url());
    await readiness(session);
    await smsc.sendMo('+15550001111', '+15550009999', 'hello back');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      sourceAddr: '15550001111',
      sourceTon: 1,
      destinationAddr: '15550009999',
      destTon: 1,
      esmClass: 0,
      dataCoding: 0,
    });
    expect(delivered[0].shortMessage.toString('latin1')).toBe('hello back');
  });

  it('answers deliver_sm only after onDeliver resolves', async () => {
    const smsc = await smscForTest();
    const { session, handlers } = sessionForTest(smsc.url());
    await readiness(session);
    let store: () => void = () => undefined;
    handlers.onDeliver = () => new Promise<void>((resolve) => (store = resolve));
    const sent = smsc.sendMo('+15550001111', '+15550009999', 'wait for me');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smsc.deliverStatuses).toEqual([]);
    store();
    await sent;
    expect(smsc.deliverStatuses).toEqual([0]);
  });

  it('answers a temporary error (ESME_RX_T_APPN) when onDeliver rejects, so the SMSC delivers it again', async () => {
    const smsc = await smscForTest();
    const { session, handlers } = sessionForTest(smsc.url());
    await readiness(session);
    handlers.onDeliver = () => Promise.reject(new Error('database down'));
    await smsc.sendMo('+15550001111', '+15550009999', 'not stored');
    expect(smsc.deliverStatuses).toEqual([ESME_RX_T_APPN]);
    expect(session.readiness().ready).toBe(true);
  });

  it('unbinds on close, settles waiting submits as retry and refuses new ones', async () => {
    const smsc = await smscForTest();
    smsc.respondWith(() => ({ status: 0, delayMs: 50 }));
    const { session } = sessionForTest(smsc.url(), { tps: 10 });
    await readiness(session);
    const first = session.submit(part('first'));
    const waiting = session.submit(part('waiting for a TPS slot'));
    await session.close();
    expect(await first).toMatchObject({ kind: 'accepted' });
    expect(await waiting).toEqual({ kind: 'retry', commandStatus: null, reason: 'session closed' });
    expect(smsc.unbinds).toBe(1);
    await session.close();
    expect(smsc.unbinds).toBe(1);
    expect(session.readiness()).toEqual({ ready: false, reason: 'session closed' });
    expect(await session.submit(part())).toMatchObject({ kind: 'retry', reason: 'session closed' });
  });
});
