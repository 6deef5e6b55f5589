// Addresses that regulators require: submitted pending, verified (or rejected) by a durable job after the
// configured delay, deletable only while no number uses them.
import type { components } from '../../generated/openapi.js';
import type { VerificationDelay } from '../config.js';
import { isForeignKeyViolation, type Store } from '../store/db.js';
import type { AddressRow } from '../store/schema.js';
import type { Job } from '../jobs/queue.js';
import type { JobContext } from '../jobs/worker.js';
import { defineJob, type JobHandling } from '../jobs/job.js';
import { enqueueJob } from '../jobs/queue.js';
import { errors, type FieldError } from '../errors.js';
import { newSid } from '../ids.js';
import { nowIso } from '../clock.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { isCountryCode } from '../numbers/countries.js';
import { addressInUse } from '../numbers/store.js';
import { AddressStore, type Address } from './store.js';
import { postalCodeProblem } from './postal-codes.js';
import { verificationTime } from './verification.js';
import type { ResponseRecorder } from '../idempotency/recorder.js';

export type AddressRecord = components['schemas']['Address'];
export type CreateAddressInput = components['schemas']['CreateAddressRequest'];

const VERIFY_ADDRESS_JOB = defineJob<{ sid: string }>('address.verify');

const TEXT_FIELDS = ['customer_name', 'street', 'city', 'region', 'postal_code'] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/** What is wrong with the fields of an address as submitted, field by field, in the order the API checks them. */
function fieldProblems(input: CreateAddressInput): FieldError[] {
  const problems: FieldError[] = [];
  if (!isCountryCode(input.iso_country.toUpperCase()))
    problems.push({ field: 'iso_country', message: 'is not an ISO 3166-1 alpha-2 country code' });
  for (const field of TEXT_FIELDS) {
    if (!input[field].trim()) problems.push({ field, message: 'must not be blank' });
  }
  return problems;
}

/**
 * Every problem of an address as a person submits it (the dashboard's form): the API's field rules, and the postal
 * code's format for its country at once (the rule the verification would reject it by), so each shows beside its
 * field before anything is stored.
 */
export function addressFormProblems(input: CreateAddressInput): FieldError[] {
  const problems = fieldProblems(input);
  const isoCountry = input.iso_country.toUpperCase();
  if (!problems.some((p) => p.field === 'iso_country' || p.field === 'postal_code')) {
    const format = postalCodeProblem(isoCountry, input.postal_code.trim());
    if (format) problems.push({ field: 'postal_code', message: format });
  }
  return problems;
}

export class AddressService {
  readonly addresses: AddressStore;

  constructor(
    private readonly store: Store,
    private readonly delay: VerificationDelay,
  ) {
    this.addresses = new AddressStore(store.db);
  }

  /** Stores the address as pending and schedules its verification in the same transaction. */
  async create(
    accountSid: string,
    input: CreateAddressInput,
    { recorder }: { recorder?: ResponseRecorder } = {},
  ): Promise<AddressRecord> {
    // The API refuses the first problem; the verification job checks the postal code's format later.
    const [first] = fieldProblems(input);
    if (first) throw errors.invalidField(first.field, first.message);
    const isoCountry = input.iso_country.toUpperCase();
    const text = (field: TextField) => input[field].trim();
    const at = this.store.clock.now();
    const now = new Date(at).toISOString();
    const row: AddressRow = {
      sid: newSid('address', at),
      account_sid: accountSid,
      friendly_name: input.friendly_name ?? null,
      customer_name: text('customer_name'),
      street: text('street'),
      city: text('city'),
      region: text('region'),
      postal_code: text('postal_code'),
      iso_country: isoCountry,
      status: 'pending',
      rejection_reason: null,
      date_created: now,
      date_updated: now,
    };
    await this.store.transaction(async (tx) => {
      await this.addresses.insert(tx, row);
      await enqueueJob(
        tx,
        VERIFY_ADDRESS_JOB,
        { sid: row.sid },
        { runAt: verificationTime(this.delay, new Date(now)) },
      );
      await recorder?.record(tx, row);
    });
    return row;
  }

  async get(accountSid: string, sid: string): Promise<AddressRecord> {
    const row = await this.addresses.find(accountSid, sid);
    if (!row) throw errors.noSuchAddress(sid);
    return row;
  }

  list(accountSid: string, page: PageRequest): Promise<Page<Address>> {
    return this.addresses.list(accountSid, page);
  }

  async delete(accountSid: string, sid: string): Promise<void> {
    const inUse = () => errors.addressInUse(sid);
    try {
      await this.store.transaction(async (tx) => {
        if (!(await this.addresses.find(accountSid, sid, tx.db))) throw errors.noSuchAddress(sid);
        if (await addressInUse(tx.db, sid)) throw inUse();
        await this.addresses.delete(tx.db, accountSid, sid);
      });
    } catch (err) {
      // A number provisioned with the address between the check and the delete: the foreign key refuses it.
      if (isForeignKeyViolation(err)) throw inUse();
      throw err;
    }
  }

  jobHandlers(): JobHandling[] {
    return [VERIFY_ADDRESS_JOB.handle((job, ctx) => this.verify(job, ctx))];
  }

  /** The verification job: checks the postal code against the country's format and settles the address. */
  async verify(job: Job<{ sid: string }>, ctx: JobContext): Promise<void> {
    await this.store.transaction(async (tx) => {
      const row = await this.addresses.bySid(tx.db, job.payload.sid);
      if (row?.status === 'pending') {
        const problem = postalCodeProblem(row.iso_country, row.postal_code);
        const outcome = { status: problem ? 'rejected' : 'verified', rejection_reason: problem } as const;
        await this.addresses.settle(tx.db, row.sid, outcome, nowIso(tx.clock));
      }
      await ctx.finishIn(tx);
    });
  }
}
