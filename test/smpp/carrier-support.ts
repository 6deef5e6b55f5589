// The fixture of the SMPP carrier tests: a loopback SMSC and the real server bound to it (CARRIER=smpp), with
// short timeouts, and helpers to read what reached the SMSC.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestSmsc, type ReceivedSubmit, type TestSmsc } from '../support/smsc.js';
import { startTestServer, type Engine, type TestAccount, type TestServer } from '../support/server.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';

/** The numbers the platform holds on the test SMSC (valid New York numbers, offered by the number search). */
const SMPP_NUMBERS = '+12125550100-+12125550199';

export interface SmppFixture {
  readonly smsc: TestSmsc;
  readonly t: TestServer;
  /** A fresh account for each test. */
  readonly account: TestAccount;
}

export function smppEnv(smsc: TestSmsc, env: Record<string, string> = {}): Record<string, string> {
  return {
    ...FAST_PIPELINE,
    CARRIER: 'smpp',
    SMPP_URL: smsc.url(),
    SMPP_NUMBERS,
    SMPP_RESPONSE_TIMEOUT_MS: '500',
    SMPP_CONCAT_TIMEOUT_MS: '1500',
    ...env,
  };
}

/** Waits until /readyz answers 200 (the session is bound). */
export async function waitReady(t: TestServer): Promise<void> {
  await waitUntil(async () => (await fetch(`${t.directUrl}/readyz`)).status === 200, 10_000, 'the SMPP bind');
}

export function useSmppServer(engine: Engine, env: Record<string, string> = {}): SmppFixture {
  let smsc: TestSmsc | undefined;
  let t: TestServer | undefined;
  let account: TestAccount | undefined;
  beforeAll(async () => {
    smsc = await startTestSmsc();
    t = await startTestServer(engine, smppEnv(smsc, env));
    await waitReady(t);
  });
  beforeEach(async () => {
    smsc!.respondWith(() => ({ status: 0 }));
    smsc!.autoReceipts(null);
    account = await t!.newAccount();
  });
  afterAll(async () => {
    await t?.stop();
    await smsc?.stop();
  });
  return {
    get smsc() {
      return smsc!;
    },
    get t() {
      return t!;
    },
    get account() {
      return account!;
    },
  };
}

/** The submits that reached the SMSC for `to` (E.164), in order. */
export function submitsTo(smsc: TestSmsc, to: string): ReceivedSubmit[] {
  return smsc.submits.filter((s) => s.destinationAddr === to.replace(/^\+/, ''));
}

/** Waits for `count` submits to `to` and returns them. */
export async function waitForSubmits(smsc: TestSmsc, to: string, count = 1): Promise<ReceivedSubmit[]> {
  await smsc.waitFor(() => submitsTo(smsc, to).length >= count, 10_000);
  return submitsTo(smsc, to);
}

let nextDestination = 0;
/** A destination no other test of the run sends to (the SMSC's submits are told apart by it). */
export function freshDestination(): string {
  nextDestination += 1;
  return `+4477009${String(process.pid % 1000).padStart(3, '0')}${String(nextDestination).padStart(3, '0')}`;
}
