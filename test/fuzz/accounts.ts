// The fuzz suite's accounts: each holds one of every resource a path sid can name, so variants have real targets.
import { createTelephonyClient } from '../../client/index.js';
import { giveNumber } from '../support/numbers.js';
import type { TestServer } from '../support/server.js';
import { waitForStatus } from '../support/messaging.js';
import { insertCall, insertRecording } from '../support/calls.js';

/** The resources of one account that valid requests point at. */
export interface FuzzAccount {
  apiKey: string;
  /** A number the account holds (E.164) and its sid. */
  number: string;
  numberSid: string;
  messageSid: string;
  addressSid: string;
  verificationSid: string;
  /** A completed call, and a completed recording of it with audio. */
  callSid: string;
  recordingSid: string;
  /** A completed call that spoke a verification code (purpose verification), with its recording. */
  verificationCallSid: string;
  /** The number the account's verification was sent to. */
  verificationTo: string;
  /** An open proxy session, its number the account's. */
  proxySessionSid: string;
  /** Numbers of the inventory, for provisioning. */
  available: string[];
}

export interface FuzzAccountOf extends FuzzAccount {
  sid: string;
}

/**
 * A fresh account with a number, a settled (failed) message, a pending address, a pending verification, an open
 * proxy session, and a completed call with a recording, and a verification call with its (written straight into the
 * database: settled, so no engine changes them later).
 */
export async function fuzzAccount(t: TestServer): Promise<FuzzAccountOf> {
  const account = await t.newAccount('fuzz');
  const client = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
  const number = await giveNumber(t, account);
  const numbers = await client.GET('/v1/incoming-phone-numbers', { params: { query: { phone_number: number } } });
  // +15005550003 ends `failed` quickly, so the message is settled before any comparison of rows.
  const message = await client.POST('/v1/messages', { body: { from: number, to: '+15005550003', body: 'fuzz' } });
  const address = await client.POST('/v1/addresses', {
    body: {
      customer_name: 'Fuzz',
      street: 'Main St 1',
      city: 'Berlin',
      region: 'Berlin',
      postal_code: '10117',
      iso_country: 'DE',
    },
  });
  const verificationTo = '+14155550199';
  const verification = await client.POST('/v1/verify/send', { body: { to: verificationTo, channel: 'sms' } });
  const available = await client.GET('/v1/available-phone-numbers/{country}/Local', {
    params: { path: { country: 'US' }, query: { page_size: 50 } },
  });
  const session = await client.POST('/v1/proxy/sessions', {
    body: { participants: [{ identifier: '+14155550181' }, { identifier: '+14155550182' }] },
  });
  const sids = [
    numbers.data?.data[0]?.sid,
    message.data?.sid,
    address.data?.sid,
    verification.data?.sid,
    session.data?.sid,
  ];
  if (sids.some((s) => !s) || !available.data) throw new Error(`fuzz fixtures failed: ${JSON.stringify(sids)}`);
  await waitForStatus(client, message.data!.sid, 'failed');
  const call = await insertCall(t, account.sid, { from_number: number });
  const recording = await insertRecording(t, call);
  const verificationCall = await insertCall(t, account.sid, { purpose: 'verification', to_number: verificationTo });
  await insertRecording(t, verificationCall);
  return {
    sid: account.sid,
    apiKey: account.apiKey,
    number,
    numberSid: sids[0]!,
    messageSid: sids[1]!,
    addressSid: sids[2]!,
    verificationSid: sids[3]!,
    callSid: call.sid,
    recordingSid: recording.sid,
    verificationCallSid: verificationCall.sid,
    verificationTo,
    proxySessionSid: sids[4]!,
    available: available.data.data.map((n) => n.phone_number),
  };
}

/** Sends a JSON request (or none) to the server itself with `apiKey`, the way a client of the API would. */
export function callAs(t: TestServer, apiKey: string, method: string, path: string, body?: unknown) {
  return fetch(t.directUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
