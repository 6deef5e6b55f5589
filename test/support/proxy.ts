// Proxy sessions for tests: an account's pool of numbers provisioned the way a user gets them, and sessions made
// through the typed client.
import { createTelephonyClient, type components, type TelephonyClient } from '../../client/index.js';
import type { TestAccount, TestServer } from './server.js';

export type ProxySession = components['schemas']['ProxySession'];
type CreateBody = components['schemas']['CreateProxySessionRequest'];

interface PoolNumberWanted {
  /** ISO country of the inventory (US by default). */
  country?: string;
  area_code?: string;
  /** true: only numbers that take SMS; false: only numbers that do not (a landline: voice only). */
  sms?: boolean;
  /** true: only numbers that take MMS too. */
  mms?: boolean;
}

/** Provisions a number that fits `wanted` for the account (the first free one a search finds); its E.164. */
export async function provisionNumber(
  t: TestServer,
  account: TestAccount,
  wanted: PoolNumberWanted = {},
): Promise<string> {
  const client = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
  const country = wanted.country ?? 'US';
  for (let round = 0; round < 5; round++) {
    const query = { page_size: 50, area_code: wanted.area_code, sms_enabled: wanted.sms, mms_enabled: wanted.mms };
    const { data, error } = await client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country }, query },
    });
    if (!data) throw new Error(`number search failed: ${JSON.stringify(error)}`);
    const fits = data.data.filter((n) => wanted.sms === undefined || n.capabilities.sms === wanted.sms);
    for (const candidate of fits) {
      const { data: number, response } = await client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: candidate.phone_number },
      });
      if (number) return number.phone_number;
      if (response.status !== 409)
        throw new Error(`provisioning ${candidate.phone_number} answered ${response.status}`);
    }
  }
  throw new Error(`no number fitting ${JSON.stringify(wanted)} could be provisioned`);
}

/** Provisions `count` US numbers (SMS, MMS and voice) for the account: a pool for every mode and message. */
export async function provisionPool(t: TestServer, account: TestAccount, count: number): Promise<string[]> {
  const pool: string[] = [];
  for (let i = 0; i < count; i++) pool.push(await provisionNumber(t, account, { sms: true, mms: true }));
  return pool;
}

/** A participant number nobody on the platform holds: the fictional 555-01xx range, `n` from 0 to 99. */
export const participant = (n: number, area = '415') => `+1${area}55501${String(n).padStart(2, '0')}`;

/** Creates a session through the client, and fails the test unless it was created. */
export async function createSession(client: TelephonyClient, body: CreateBody): Promise<ProxySession> {
  const { data, error, response } = await client.POST('/v1/proxy/sessions', { body });
  if (!data) throw new Error(`creating a session answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/** Two participants by number, for a request body. */
export const pair = (a: string, b: string) => [{ identifier: a }, { identifier: b }];
