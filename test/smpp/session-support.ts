// Sessions to the loopback SMSC with short protocol timers; sessions and SMSCs are closed after each test.
import pino from 'pino';
import { afterEach } from 'vitest';
import {
  type DeliverSm,
  SmppSession,
  type SmppSessionOptions,
  type SubmitPart,
} from '../../server/carrier/smpp/session.js';
import { type TestSmsc, startTestSmsc } from '../support/smsc.js';
import { waitUntil } from '../support/wait.js';

const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

export async function smscForTest(options?: Parameters<typeof startTestSmsc>[0]): Promise<TestSmsc> {
  const smsc = await startTestSmsc(options);
  open.push({ close: () => smsc.stop().catch(() => undefined) });
  return smsc;
}

/** A started session; `delivered` collects what onDeliver saw, `onDeliver` can be replaced. */
export function sessionForTest(url: string, overrides: Partial<SmppSessionOptions> = {}) {
  const delivered: DeliverSm[] = [];
  const handlers: { onDeliver: (pdu: DeliverSm) => Promise<void> } = {
    onDeliver: async (pdu) => void delivered.push(pdu),
  };
  const session = new SmppSession(
    {
      url,
      window: 10,
      tps: 1000,
      responseTimeoutMs: 1000,
      enquireLinkMs: 30_000,
      reconnectMinMs: 20,
      reconnectMaxMs: 200,
      logger: pino({ level: 'silent' }),
      ...overrides,
    },
    (pdu) => handlers.onDeliver(pdu),
  );
  open.push(session);
  session.start();
  return { session, delivered, handlers };
}

export function part(text = 'hello', to = '15550001111'): SubmitPart {
  return {
    sourceAddr: '15550009999',
    sourceTon: 1,
    sourceNpi: 1,
    destinationAddr: to,
    destTon: 1,
    destNpi: 1,
    esmClass: 0,
    dataCoding: 0,
    shortMessage: Buffer.from(text, 'latin1'),
    registeredDelivery: 1,
  };
}

/** Waits until the session is bound (or is not, with `ready` false). */
export function readiness(session: SmppSession, ready = true, timeoutMs = 5000): Promise<unknown> {
  return waitUntil(async () => session.readiness().ready === ready, timeoutMs, ready ? 'the bind' : 'the drop');
}
