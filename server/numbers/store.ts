// SQL for incoming (provisioned) numbers. The unique index on phone_number decides who holds a number.
import type { Selectable, Updateable } from 'kysely';
import type { Db, Tx } from '../store/db.js';
import type { IncomingNumberRow } from '../store/schema.js';
import { paginate, type Page, type PageRequest } from '../store/pagination.js';
import { prepared } from '../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

const selectIncomingNumber = prepared((db, phoneNumber: string) =>
  db
    .selectFrom('incoming_numbers')
    .select(['sid', 'account_sid', 'sms_url', 'capabilities'])
    .where('phone_number', '=', phoneNumber),
);

/** Who holds a number on this platform, and where its inbound webhooks go. */
export type Holder = Pick<IncomingNumberRow, 'sid' | 'account_sid' | 'sms_url'>;
/** A holder with what its number can do (JSON), as `incomingNumber` reads it. */
export type HeldNumber = Holder & Pick<IncomingNumberRow, 'capabilities'>;

/** The platform record of a number: who holds it and where its inbound webhooks go. */
export function incomingNumber(db: Conn, phoneNumber: string): Promise<HeldNumber | undefined> {
  return selectIncomingNumber.first(db, phoneNumber);
}

/** Which of these E.164 numbers some account holds. */
async function heldAmong(db: Conn, phoneNumbers: string[]): Promise<Set<string>> {
  if (phoneNumbers.length === 0) return new Set();
  const rows = await selectHeld.all(db, phoneNumbers);
  return new Set(rows.map((r) => r.phone_number));
}

// Read by a number's provisioning and the searches' held check.
const selectHeld = prepared((db, phoneNumbers: string[]) =>
  db.selectFrom('incoming_numbers').select('phone_number').where('phone_number', 'in', phoneNumbers),
);

const selectHoldingsVersion = prepared((db) => db.selectFrom('number_holdings').select('version').where('id', '=', 1));

/**
 * A version that moves whenever any account provisions or releases a number, on any instance (triggers of
 * migration 025 bump it in the change's transaction): while it stands, what `heldAmong` answered still holds.
 */
async function holdingsVersion(db: Conn): Promise<number> {
  const row = await selectHoldingsVersion.first(db);
  return Number(row!.version);
}

/** Whether any number uses the address. */
export async function addressInUse(db: Conn, addressSid: string): Promise<boolean> {
  return Boolean(
    await db
      .selectFrom('incoming_numbers')
      .select('sid')
      .where('address_sid', '=', addressSid)
      .limit(1)
      .executeTakeFirst(),
  );
}

/** How many numbers the account holds. */
export async function countHeld(db: Conn, accountSid: string): Promise<number> {
  const row = await db
    .selectFrom('incoming_numbers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_sid', '=', accountSid)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Inserts the row; false when another account (or this one) already holds the number. */
export async function insertNumber(db: Conn, row: IncomingNumberRow): Promise<boolean> {
  // No error on a taken number: on PostgreSQL an error would end the transaction the quota's check runs in.
  const result = await db
    .insertInto('incoming_numbers')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Deletes the account's number; what it was, or undefined when the account holds no number `sid`. */
export function deleteNumber(
  db: Conn,
  accountSid: string,
  sid: string,
): Promise<Pick<IncomingNumberRow, 'sid' | 'account_sid' | 'phone_number'> | undefined> {
  return db
    .deleteFrom('incoming_numbers')
    .where('sid', '=', sid)
    .where('account_sid', '=', accountSid)
    .returning(['sid', 'account_sid', 'phone_number'])
    .executeTakeFirst();
}

export type IncomingNumber = Selectable<IncomingNumberRow>;

export interface NumberListFilters {
  /** Digits contained in the number; with a leading `+`, the number starts with them. */
  phone_number?: string;
  friendly_name?: string;
}

export class NumberStore {
  constructor(private readonly db: Db) {}

  /** Which of these E.164 numbers some account holds. */
  heldAmong(phoneNumbers: string[]): Promise<Set<string>> {
    return heldAmong(this.db, phoneNumbers);
  }

  holdingsVersion(): Promise<number> {
    return holdingsVersion(this.db);
  }

  find(accountSid: string, sid: string): Promise<IncomingNumber | undefined> {
    return this.db
      .selectFrom('incoming_numbers')
      .selectAll()
      .where('sid', '=', sid)
      .where('account_sid', '=', accountSid)
      .executeTakeFirst();
  }

  list(accountSid: string, filters: NumberListFilters, page: PageRequest): Promise<Page<IncomingNumber>> {
    let q = this.db.selectFrom('incoming_numbers').selectAll().where('account_sid', '=', accountSid);
    if (filters.phone_number) {
      const anchored = filters.phone_number.startsWith('+');
      q = q.where('phone_number', 'like', anchored ? `${filters.phone_number}%` : `%${filters.phone_number}%`);
    }
    if (filters.friendly_name !== undefined) q = q.where('friendly_name', '=', filters.friendly_name);
    return paginate(q, page);
  }

  async update(
    accountSid: string,
    sid: string,
    changes: Updateable<IncomingNumberRow>,
  ): Promise<IncomingNumber | undefined> {
    await this.db
      .updateTable('incoming_numbers')
      .set(changes)
      .where('sid', '=', sid)
      .where('account_sid', '=', accountSid)
      .execute();
    return this.find(accountSid, sid);
  }
}
