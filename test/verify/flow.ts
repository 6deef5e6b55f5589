// Shared by the verification tests: a fast sandbox network, and the steps of a verification over HTTP.
import type { TelephonyClient, components } from '../../client/index.js';
import { waitForStatusOf } from '../support/wait.js';

export type Verification = components['schemas']['Verification'];

/** Sandbox failure reports after a few tens of milliseconds, calls (voice codes) 50 times faster, retries fast. */
export const FAST_VERIFY: Record<string, string> = {
  SANDBOX_CALL_SPEED: '50',
  SANDBOX_CALL_RING_MS: '1000',
  SANDBOX_SENT_DELAY_MS: '20',
  SANDBOX_DELIVERY_DELAY_MS: '30',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_TIMEOUT_MS: '2000',
};

let next = 0;
/** A fresh valid US number per call, so tests never share a number's send limit by accident. */
export function freshNumber(): string {
  next += 1;
  return `+1415555${String((process.pid * 7 + next) % 10000).padStart(4, '0')}`;
}

export async function sendCode(
  client: TelephonyClient,
  body: components['schemas']['SendVerificationRequest'],
): Promise<Verification> {
  const { data, error, response } = await client.POST('/v1/verify/send', { body });
  if (!data) throw new Error(`send failed: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

/** The code the sandbox network delivered to `to`, as an app's test suite would read it. */
export async function deliveredCode(client: TelephonyClient, to: string) {
  const { data, error, response } = await client.GET('/v1/sandbox/verification-codes/{to}', {
    params: { path: { to } },
  });
  if (!data) throw new Error(`no code for ${to}: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

export async function check(client: TelephonyClient, body: components['schemas']['CheckVerificationRequest']) {
  return client.POST('/v1/verify/check', { body });
}

export async function waitForVerification(
  client: TelephonyClient,
  sid: string,
  status: Verification['status'],
  timeoutMs = 20_000,
): Promise<Verification> {
  const read = async () => (await client.GET('/v1/verify/{sid}', { params: { path: { sid } } })).data;
  return waitForStatusOf(read, status, timeoutMs, `verification ${sid} to be ${status}`);
}
