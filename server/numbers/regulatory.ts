// Which address a number gets, under its country's requirements: none, a verified address of the account
// anywhere ("any"), or one in the number's country ("local"). A refusal names the remedy, with the absolute link to
// the dashboard's Settings > Addresses page; an address that would do but is still pending says so (address_pending).
import { errors } from '../errors.js';
import type { AddressStore } from '../addresses/store.js';
import type { AddressRequirement } from './countries.js';

export interface Requirement {
  isoCountry: string;
  addressRequirements: AddressRequirement;
  /** The absolute URL of the dashboard's Settings > Addresses page, for the remedy. */
  addressesPage: string;
}

/** The path of the dashboard page where addresses are submitted (under the server's public URL). */
export const ADDRESSES_PAGE_PATH = '/dashboard/settings/addresses';

function remedy(need: Requirement): string {
  const where = need.addressRequirements === 'local' ? `in ${need.isoCountry}` : '(in any country)';
  return (
    `Numbers in ${need.isoCountry} require a verified address of your account ${where}. ` +
    `Submit an address in the dashboard (Settings > Addresses, ${need.addressesPage}) or with POST /v1/addresses; ` +
    `it is verified, typically within 1 business day, and then provisioning in ${need.isoCountry} succeeds. ` +
    'Pass its sid as AddressSid.'
  );
}

/**
 * The address sid to record for the number. `addressSid`, when given, must be the account's; when the
 * country has requirements it must also meet them. Without one, the account's oldest verified address
 * that meets them is used.
 */
export async function addressFor(
  addresses: AddressStore,
  accountSid: string,
  need: Requirement,
  addressSid: string | undefined,
): Promise<string | null> {
  if (addressSid) {
    const address = await addresses.find(accountSid, addressSid);
    if (!address) throw errors.addressNotFound(addressSid);
    if (need.addressRequirements === 'none') return address.sid;
    if (address.status === 'pending') throw errors.addressPending(address.sid, need.isoCountry);
    if (address.status === 'rejected') {
      const reason = `Address ${address.sid} was rejected (${address.rejection_reason}).`;
      throw errors.regulatoryRequirements(remedy(need), reason);
    }
    if (need.addressRequirements === 'local' && address.iso_country !== need.isoCountry) {
      throw errors.regulatoryRequirements(remedy(need), `Address ${address.sid} is in ${address.iso_country}.`);
    }
    return address.sid;
  }
  if (need.addressRequirements === 'none') return null;
  const found = await addresses.firstVerified(
    accountSid,
    need.addressRequirements === 'local' ? need.isoCountry : null,
  );
  if (found) return found.sid;
  const pending = await addresses.firstPending(
    accountSid,
    need.addressRequirements === 'local' ? need.isoCountry : null,
  );
  if (pending) throw errors.addressPending(pending.sid, need.isoCountry);
  throw errors.regulatoryRequirements(remedy(need));
}
