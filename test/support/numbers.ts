// Gives a test account a phone number the way a user gets one: search the inventory, provision the first free one.
// Or, for tests below the API, straight into the store.
import { createTelephonyClient } from '../../client/index.js';
import { sql } from 'kysely';
import type { Store } from '../../server/store/db.js';
import type { TestAccount, TestServer } from './server.js';

/** Provisions a US local number for the account (with an sms_url when given) and returns it, E.164. */
export async function giveNumber(
  t: TestServer,
  account: TestAccount,
  options: { smsUrl?: string } = {},
): Promise<string> {
  const client = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
  for (let round = 0; round < 5; round++) {
    const { data, error } = await client.GET('/v1/available-phone-numbers/{country}/Local', {
      // SMS and MMS (one US number in five has no MMS): the tests send either from it.
      params: { path: { country: 'US' }, query: { page_size: 50, mms_enabled: true } },
    });
    if (!data) throw new Error(`number search failed: ${JSON.stringify(error)}`);
    for (const candidate of data.data) {
      const { data: number, response } = await client.POST('/v1/incoming-phone-numbers', {
        body: { PhoneNumber: candidate.phone_number, ...(options.smsUrl ? { SmsUrl: options.smsUrl } : {}) },
      });
      if (number) return number.phone_number;
      if (response.status !== 409)
        throw new Error(`provisioning ${candidate.phone_number} answered ${response.status}`);
    }
  }
  throw new Error('no number could be provisioned');
}

/** A fresh account holding a number, for the files whose tests all send from one (provisioning per test is slow). */
export async function accountWithNumber(t: TestServer): Promise<{ account: TestAccount; from: string }> {
  const account = await t.newAccount();
  return { account, from: await giveNumber(t, account) };
}

/** Straight into the store (for tests below the API): the account, made when missing, holds the number. */
export async function holdNumber(store: Store, accountSid: string, phoneNumber: string): Promise<void> {
  const now = new Date().toISOString();
  await sql`insert into accounts (sid, name, webhook_secret, date_created, date_updated)
    values (${accountSid}, ${accountSid}, 'unused', ${now}, ${now}) on conflict (sid) do nothing`.execute(store.db);
  await store.db
    .insertInto('incoming_numbers')
    .values({
      sid: `PN${phoneNumber.slice(1)}`,
      account_sid: accountSid,
      phone_number: phoneNumber,
      friendly_name: phoneNumber,
      sms_url: null,
      sms_method: 'POST',
      voice_url: null,
      voice_method: 'POST',
      status_callback: null,
      capabilities: JSON.stringify({ voice: true, sms: true, mms: true }),
      iso_country: 'US',
      number_type: 'local',
      address_sid: null,
      address_requirements: 'none',
      date_created: now,
      date_updated: now,
    })
    .execute();
}
