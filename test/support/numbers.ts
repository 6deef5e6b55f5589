// Gives a test account a phone number. Until provisioning lands it writes the incoming_numbers row directly,
// with the defaults provisioning would use; switch to the API call once provisionPhoneNumber exists.
import type { TestAccount, TestServer } from './server.js';
import { newSid } from '../../server/ids.js';

export interface GivenNumber {
  sid: string;
  phoneNumber: string;
}

export async function giveNumber(t: TestServer, account: TestAccount, phoneNumber: string, options: { smsUrl?: string } = {}): Promise<GivenNumber> {
  const now = new Date().toISOString();
  const sid = newSid('incomingNumber');
  await t.server.services.store.db
    .insertInto('incoming_numbers')
    .values({
      sid,
      account_sid: account.sid,
      phone_number: phoneNumber,
      friendly_name: phoneNumber,
      sms_url: options.smsUrl ?? null,
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
  return { sid, phoneNumber };
}

/** A random US number, so tests never collide on the platform-wide unique phone_number. */
export function uniqueNumber(): string {
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('');
  return `+1${2 + Math.floor(Math.random() * 7)}${digits(2)}${2 + Math.floor(Math.random() * 7)}${digits(6)}`;
}
