// SQL for addresses; every query is scoped to one account.
import type { Selectable } from 'kysely';
import type { Db, Tx } from '../store/db.js';
import type { AddressRow } from '../store/schema.js';
import { paginate, type Page, type PageRequest } from '../store/pagination.js';

export type Address = Selectable<AddressRow>;

export class AddressStore {
  constructor(private readonly db: Db) {}

  async insert(tx: Tx, row: AddressRow): Promise<void> {
    await tx.db.insertInto('addresses').values(row).execute();
  }

  find(accountSid: string, sid: string, db: Db | Tx['db'] = this.db): Promise<Address | undefined> {
    return db
      .selectFrom('addresses')
      .selectAll()
      .where('sid', '=', sid)
      .where('account_sid', '=', accountSid)
      .executeTakeFirst();
  }

  /** Whatever its account (for background work). */
  bySid(db: Db | Tx['db'], sid: string): Promise<Address | undefined> {
    return db.selectFrom('addresses').selectAll().where('sid', '=', sid).executeTakeFirst();
  }

  list(accountSid: string, page: PageRequest): Promise<Page<Address>> {
    return paginate(this.db.selectFrom('addresses').selectAll().where('account_sid', '=', accountSid), page);
  }

  /** The account's oldest verified address, in `isoCountry` when given. */
  firstVerified(accountSid: string, isoCountry: string | null): Promise<Address | undefined> {
    let q = this.db
      .selectFrom('addresses')
      .selectAll()
      .where('account_sid', '=', accountSid)
      .where('status', '=', 'verified');
    if (isoCountry) q = q.where('iso_country', '=', isoCountry);
    return q.orderBy('date_created').orderBy('sid').limit(1).executeTakeFirst();
  }

  /** The account's oldest address still pending verification (in `isoCountry`, when given). */
  firstPending(accountSid: string, isoCountry: string | null): Promise<Address | undefined> {
    let q = this.db
      .selectFrom('addresses')
      .selectAll()
      .where('account_sid', '=', accountSid)
      .where('status', '=', 'pending');
    if (isoCountry) q = q.where('iso_country', '=', isoCountry);
    return q.orderBy('date_created').orderBy('sid').limit(1).executeTakeFirst();
  }

  async delete(db: Tx['db'], accountSid: string, sid: string): Promise<boolean> {
    const result = await db
      .deleteFrom('addresses')
      .where('sid', '=', sid)
      .where('account_sid', '=', accountSid)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Records the verification outcome of a pending address; false when it was no longer pending (or is gone). */
  async settle(
    db: Tx['db'],
    sid: string,
    outcome: { status: 'verified' | 'rejected'; rejection_reason: string | null },
    now: string,
  ): Promise<boolean> {
    const result = await db
      .updateTable('addresses')
      .set({ ...outcome, date_updated: now })
      .where('sid', '=', sid)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
