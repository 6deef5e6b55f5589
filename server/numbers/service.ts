// Phone numbers: search the inventory, provision (with the country's address rules), configure, list, release.
import type { components } from '../../generated/openapi.js';
import { isForeignKeyViolation, type Store, type Tx } from '../store/db.js';
import type { IncomingNumberRow } from '../store/schema.js';
import type { AddressStore } from '../addresses/store.js';
import { errors } from '../errors.js';
import { newSid } from '../ids.js';
import { nowIso, type Clock } from '../clock.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { COUNTRIES, SUPPORTED_COUNTRIES, isCountryCode } from './countries.js';
import { describeNumber, drawNumbers, type AvailableNumber, type SearchFilters, type SearchType } from './inventory.js';
import { ADDRESSES_PAGE_PATH, addressFor } from './regulatory.js';
import { RecentSearches } from './recent-searches.js';
import type { PublicUrl } from '../http/public-url.js';
import { lockAccountQuota } from '../store/account-lock.js';
import { assertUrlsAllowed, type PrivateAddressPolicy } from '../webhooks/url-policy.js';
import { NumberStore, countHeld, deleteNumber, insertNumber } from './store.js';
import type { IncomingNumber, NumberListFilters } from './store.js';
import type { ResponseRecorder } from '../idempotency/recorder.js';
import type { OfferedNumbers } from '../carrier/smpp/offered-numbers.js';

export type IncomingPhoneNumber = components['schemas']['IncomingPhoneNumber'];
export type ProvisionInput = components['schemas']['ProvisionPhoneNumberRequest'];
export type UpdateInput = components['schemas']['UpdateIncomingPhoneNumberRequest'];

/** What another feature does when a number is released, in the release's transaction (proxy sessions fail). */
type ReleaseListener = (
  tx: Tx,
  released: Pick<IncomingNumber, 'sid' | 'account_sid' | 'phone_number'>,
) => Promise<void>;

export class NumberService {
  readonly numbers: NumberStore;
  private readonly clock: Clock;
  private readonly releaseListeners: ReleaseListener[] = [];
  /** Per store: a version is one database's. */
  private readonly recentSearches = new RecentSearches();

  constructor(
    private readonly store: Store,
    private readonly addresses: AddressStore,
    /** MAX_NUMBERS_PER_ACCOUNT: the most numbers one account holds at once. */
    private readonly maxNumbers: number,
    /** Which non-public addresses given URLs may point at (WEBHOOK_ALLOW_PRIVATE). */
    private readonly privateAddresses: PrivateAddressPolicy,
    /** The server's public URL: the regulatory remedy links to the dashboard's addresses page under it. */
    private readonly publicUrl: PublicUrl,
    /** On a real network (SMPP_NUMBERS): the only numbers offered and provisioned, instead of the inventory. */
    private readonly offered?: OfferedNumbers,
  ) {
    this.numbers = new NumberStore(store.db);
    this.clock = store.clock;
  }

  /** Up to `pageSize` available numbers; candidates are drawn in batches and held ones dropped (one query per
   * batch), unless the same search's answer is remembered since the last number provisioned or released. */
  async search(
    country: string,
    type: SearchType,
    filters: SearchFilters,
    pageSize: number,
  ): Promise<AvailableNumber[]> {
    const iso = country.toUpperCase();
    if (!isCountryCode(iso)) throw errors.invalidField('country', 'is not an ISO 3166-1 alpha-2 country code');
    if (!COUNTRIES.has(iso)) throw errors.countryNotInInventory(iso, SUPPORTED_COUNTRIES);
    // Read before the holdings it stands for: a number provisioned meanwhile moves it, so the answer found below is
    // remembered under a version already stale, never under one it is not true at.
    const version = await this.numbers.holdingsVersion();
    const key = `${iso}|${type}|${pageSize}|${JSON.stringify(filters)}`;
    const remembered = this.recentSearches.get(key, version);
    if (remembered) return remembered;
    const draws = (
      this.offered ? await offeredNumbers(this.offered, iso, type) : await drawNumbers(iso, type, filters)
    )[Symbol.iterator]();
    const found: AvailableNumber[] = [];
    // A quarter more than needed, so a few held numbers rarely cost a second query; twice as many each time after.
    let want = Math.ceil(pageSize * 1.25) + 5;
    for (let exhausted = false; !exhausted && found.length < pageSize; want *= 2) {
      const batch: AvailableNumber[] = [];
      for (let next = draws.next(); ; next = draws.next()) {
        if (next.done) {
          exhausted = true;
          break;
        }
        batch.push(next.value);
        if (batch.length >= want) break;
      }
      const held = await this.numbers.heldAmong(batch.map((n) => n.phone_number));
      for (const n of batch) if (!held.has(n.phone_number) && found.length < pageSize) found.push(n);
    }
    this.recentSearches.set(key, version, found);
    return found;
  }

  async provision(
    accountSid: string,
    input: ProvisionInput,
    { recorder }: { recorder?: ResponseRecorder } = {},
  ): Promise<IncomingPhoneNumber> {
    this.checkUrls(input);
    const number = await describeNumber(input.PhoneNumber);
    const unavailable = () => errors.numberUnavailable(input.PhoneNumber);
    if (!number || (this.offered && !this.offered.includes(number.phone_number))) throw unavailable();
    if ((await this.numbers.heldAmong([number.phone_number])).size > 0) throw unavailable();
    const addressSid = await addressFor(
      this.addresses,
      accountSid,
      { isoCountry: number.iso_country, addressRequirements: number.address_requirements, addressesPage: this.page() },
      input.AddressSid,
    );
    const at = this.clock.now();
    const now = new Date(at).toISOString();
    const row: IncomingNumberRow = {
      sid: newSid('incomingNumber', at),
      account_sid: accountSid,
      phone_number: number.phone_number,
      friendly_name: input.FriendlyName ?? number.friendly_name,
      sms_url: input.SmsUrl ?? null,
      sms_method: input.SmsMethod ?? 'POST',
      voice_url: input.VoiceUrl ?? null,
      voice_method: input.VoiceMethod ?? 'POST',
      status_callback: input.StatusCallback ?? null,
      capabilities: JSON.stringify(number.capabilities),
      iso_country: number.iso_country,
      number_type: number.number_type,
      address_sid: addressSid,
      address_requirements: number.address_requirements,
      date_created: now,
      date_updated: now,
    };
    const record = toRecord(row);
    // The count and the insert take turns per account (the quota is exact); the unique index decides a race
    // between two requests for the number: the loser gets the 409. With a key, the response is recorded in the
    // same transaction as the number it answers.
    await this.store
      .transaction(async (tx) => {
        await lockAccountQuota(tx, this.store.dialect, 'numbers', accountSid);
        if ((await countHeld(tx.db, accountSid)) >= this.maxNumbers) throw errors.numberQuotaExceeded(this.maxNumbers);
        if (!(await insertNumber(tx.db, row))) throw unavailable();
        if (recorder) await recorder.record(tx, record);
      })
      .catch(addressGone(addressSid));
    return record;
  }

  /** The absolute URL of the dashboard's Settings > Addresses page. */
  private page(): string {
    return `${this.publicUrl.value}${ADDRESSES_PAGE_PATH}`;
  }

  private checkUrls(input: ProvisionInput | UpdateInput): void {
    const { SmsUrl, VoiceUrl, StatusCallback } = input;
    assertUrlsAllowed(this.privateAddresses, { SmsUrl, VoiceUrl, StatusCallback });
  }

  async get(accountSid: string, sid: string): Promise<IncomingPhoneNumber> {
    return toRecord(await this.owned(accountSid, sid));
  }

  async list(accountSid: string, filters: NumberListFilters, page: PageRequest): Promise<Page<IncomingPhoneNumber>> {
    const result = await this.numbers.list(accountSid, filters, page);
    return { data: result.data.map(toRecord), next_page_token: result.next_page_token };
  }

  async update(accountSid: string, sid: string, input: UpdateInput): Promise<IncomingPhoneNumber> {
    const current = await this.owned(accountSid, sid);
    this.checkUrls(input);
    const url = (value: string | undefined) => (value === undefined ? undefined : value === '' ? null : value);
    const changes: Partial<IncomingNumberRow> = {
      friendly_name: input.FriendlyName,
      sms_url: url(input.SmsUrl),
      sms_method: input.SmsMethod,
      voice_url: url(input.VoiceUrl),
      voice_method: input.VoiceMethod,
      status_callback: url(input.StatusCallback),
    };
    if (input.AddressSid !== undefined) {
      changes.address_sid = await addressFor(
        this.addresses,
        accountSid,
        {
          isoCountry: current.iso_country,
          addressRequirements: current.address_requirements,
          addressesPage: this.page(),
        },
        input.AddressSid,
      );
    }
    const updated = await this.numbers
      .update(accountSid, sid, { ...changes, date_updated: nowIso(this.clock) })
      .catch(addressGone(changes.address_sid ?? null));
    if (!updated) throw notFound(sid);
    return toRecord(updated);
  }

  /** Other features follow releases here (see ReleaseListener). */
  onReleased(listener: ReleaseListener): void {
    this.releaseListeners.push(listener);
  }

  /** Immediate and irreversible: the row goes, so the number is back in the inventory for anyone. */
  async release(accountSid: string, sid: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      const released = await deleteNumber(tx.db, accountSid, sid);
      if (!released) throw notFound(sid);
      for (const listener of this.releaseListeners) await listener(tx, released);
    });
  }

  private async owned(accountSid: string, sid: string): Promise<IncomingNumber> {
    const row = await this.numbers.find(accountSid, sid);
    if (!row) throw notFound(sid);
    return row;
  }
}

/** The most offered numbers one search looks at (the search filters do not apply to them). */
const MAX_OFFERED_SEARCHED = 10_000;

/** The offered numbers of the country and type searched, among the first MAX_OFFERED_SEARCHED. */
async function offeredNumbers(offered: OfferedNumbers, iso: string, type: SearchType): Promise<AvailableNumber[]> {
  const found: AvailableNumber[] = [];
  let seen = 0;
  for (const e164 of offered.all()) {
    if (++seen > MAX_OFFERED_SEARCHED) break;
    const number = await describeNumber(e164);
    if (number?.iso_country === iso && (number.number_type === 'toll_free') === (type === 'TollFree'))
      found.push(number);
  }
  return found;
}

function notFound(sid: string) {
  return errors.noSuchIncomingNumber(sid);
}

function toRecord(row: IncomingNumber): IncomingPhoneNumber {
  return {
    sid: row.sid,
    account_sid: row.account_sid,
    phone_number: row.phone_number,
    friendly_name: row.friendly_name,
    sms_url: row.sms_url,
    sms_method: row.sms_method,
    voice_url: row.voice_url,
    voice_method: row.voice_method,
    status_callback: row.status_callback,
    capabilities: JSON.parse(row.capabilities),
    iso_country: row.iso_country,
    number_type: row.number_type,
    address_sid: row.address_sid,
    address_requirements: row.address_requirements,
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}

/** The address read for a number deleted before the number's write (a DELETE at that moment): the write's foreign
 * key refuses it, answered as an address that is not the account's, never a 500. */
function addressGone(addressSid: string | null) {
  return (err: unknown): never => {
    if (addressSid !== null && isForeignKeyViolation(err)) throw errors.addressNotFound(addressSid);
    throw err;
  };
}
