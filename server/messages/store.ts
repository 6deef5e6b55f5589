// SQL of messages (SQLite and PostgreSQL alike). Status changes are conditional updates, so a transition
// happens once even when two workers race for it.
import { CompiledQuery, sql, type Updateable } from 'kysely';
import type { Db, Dialect, Tx } from '../store/db.js';
import type { JobRow, MessageRow, MessageStatus } from '../store/schema.js';
import type { Holder } from '../numbers/store.js';
import { paginate, type Page, type PageRequest } from '../store/pagination.js';
import { prepared } from '../store/sqlite/prepared.js';
import { nameStatement } from '../store/named-statements.js';

type Conn = Db | Tx['db'];

export interface MessageFilters {
  to?: string;
  from?: string;
  status?: MessageStatus;
  direction?: MessageRow['direction'];
  /** Inclusive. */
  createdAfter?: string;
  /** Exclusive. */
  createdBefore?: string;
}

type Change = Updateable<MessageRow> & { status: MessageStatus; date_updated: string };

// The statements of the message pipeline, compiled once (see store/sqlite/prepared.ts).
const insertRow = prepared((db, row: MessageRow) => db.insertInto('messages').values(row));
const selectOwned = prepared((db, accountSid: string, sid: string) =>
  db.selectFrom('messages').selectAll().where('sid', '=', sid).where('account_sid', '=', accountSid),
);
const selectBySid = prepared((db, sid: string) => db.selectFrom('messages').selectAll().where('sid', '=', sid));
/** A message's change, only if it is in one of `from`. */
const updateFrom = (db: Db, sid: string, from: readonly MessageStatus[], set: Change) =>
  db.updateTable('messages').set(set).where('sid', '=', sid).where('status', 'in', from);
const updateIn = prepared((db, sid: string, from: readonly MessageStatus[], set: Change) =>
  updateFrom(db, sid, from, set).returningAll(),
);
/** "The account still holds the number the message is sent from", over the columns named: the one definition of
 * the Kysely expression below, the slot statement's and the batched send's. */
const holdsSender = (account: string, number: string) =>
  `exists (select 1 from incoming_numbers n where n.phone_number = ${number} and n.account_sid = ${account})`;
const senderHeld = sql<boolean>`${sql.raw(holdsSender('messages.account_sid', 'messages.from_number'))}`;
/** A queued message marked `sending` only while its account holds its sending number (released numbers send
 * nothing more of their former account's, whoever holds them next). */
const updateQueuedFromHeld = prepared((db, sid: string, set: Change) =>
  updateFrom(db, sid, ['queued'], set).where(senderHeld).returningAll(),
);
const selectQueuedFromHeld = prepared((db, sid: string) =>
  db
    .selectFrom('messages')
    .select('messages.sid')
    .where('messages.sid', '=', sid)
    .where('messages.status', '=', 'queued')
    .where(senderHeld),
);
const updateScheduledIn = prepared(
  (db, sid: string, from: readonly MessageStatus[], set: Change, sendAtAfter: string) =>
    updateFrom(db, sid, from, set).where('send_at', '>', sendAtAfter).returningAll(),
);

const selectQueuedCount = prepared((db, accountSid: string) =>
  db
    .selectFrom('message_queue_counts')
    .select((eb) => eb.fn.sum<number | string | null>('queued').as('queued'))
    .where('account_sid', '=', accountSid),
);

/** How many messages of the account are `queued`: the sum of the rows triggers on messages keep (migrations 011, and
 * 020 and 022 on PostgreSQL). */
async function queuedCount(db: Conn, accountSid: string): Promise<number> {
  return Number((await selectQueuedCount.first(db, accountSid))?.queued ?? 0);
}

const admitQueued = prepared((db, accountSid: string, quota: number) =>
  db.selectNoFrom((eb) => eb.fn<boolean>('message_queue_admit', [eb.val(accountSid), eb.val(quota)]).as('admitted')),
);

/**
 * Whether the account may queue one more message under `quota`, asked before the message's insert and exact under
 * concurrent sends. SQLite runs one transaction at a time: the count. PostgreSQL: migration 022's function, which
 * lets the account's sends run at once while the count is far from the quota and makes them take turns near it.
 */
export async function roomInQueue(db: Conn, dialect: Dialect, accountSid: string, quota: number): Promise<boolean> {
  if (dialect === 'sqlite') return (await queuedCount(db, accountSid)) < quota;
  return Boolean((await admitQueued.first(db, accountSid, quota))?.admitted);
}

/** The columns of a message row and of a job row, each with its PostgreSQL type (see sendBatch). */
const MESSAGE_TYPES: Record<keyof MessageRow, string> = {
  sid: 'text',
  account_sid: 'text',
  from_number: 'text',
  to_number: 'text',
  body: 'text',
  media_url: 'text',
  num_media: 'integer',
  num_segments: 'integer',
  status: 'text',
  direction: 'text',
  channel: 'text',
  price: 'double precision',
  price_unit: 'text',
  error_code: 'text',
  error_message: 'text',
  send_at: 'text',
  validity_period: 'integer',
  expires_at: 'text',
  status_callback: 'text',
  origin_sid: 'text',
  date_created: 'text',
  date_updated: 'text',
  date_sent: 'text',
};
type NewJob = Omit<JobRow, 'id' | 'attempts' | 'dead' | 'claims'>;
const JOB_TYPES: Record<keyof NewJob, string> = {
  kind: 'text',
  payload: 'text',
  run_at: 'text',
  max_attempts: 'integer',
  ordering_key: 'text',
  locked_by: 'text',
  locked_until: 'text',
  last_error: 'text',
  date_created: 'text',
};
const MESSAGE_COLUMNS = Object.keys(MESSAGE_TYPES) as (keyof MessageRow)[];
const JOB_COLUMNS = Object.keys(JOB_TYPES) as (keyof NewJob)[];

// $1 the quota, then one array a column: the jobs' columns and the messages' (an array's elements take its type).
// `input` numbers the sends in their order; each is owned (its account holds its sending number) or not, capable (the
// number's capabilities hold what its channel needs, as neededCapability in service.ts says) or not, and of an
// account's owned and capable sends the first ones are admitted, as many as message_queue_admit_many (migration 031)
// answers.
// The jobs go in the sends' order, so that jobs of one ordering key run in it. The messages go in the order of their
// accounts, as the function takes their locks: each insert's trigger holds its account's count row of this
// connection's stripe to the commit, and two statements on connections of one stripe that took those rows in two
// orders would wait for each other.
const SEND_BATCH = (() => {
  const job = JOB_COLUMNS.map((column) => `j_${column}`);
  const message = MESSAGE_COLUMNS.map((column) => `m_${column}`);
  const types = [...Object.values(JOB_TYPES), ...Object.values(MESSAGE_TYPES)];
  const arrays = types.map((type, i) => `$${i + 2}::${type}[]`).join(', ');
  return `
    with input as materialized (
      select * from unnest(${arrays}) with ordinality as i (${[...job, ...message].join(', ')}, ord)
    ), owned as materialized (
      select i.ord, i.m_account_sid as account, (
        select (n.capabilities::jsonb ->> (case when i.m_channel = 'mms' then 'mms' else 'sms' end))::boolean
        from incoming_numbers n where n.phone_number = i.m_from_number
      ) as capable
      from input i
      where ${holdsSender('i.m_account_sid', 'i.m_from_number')}
    ), sendable as materialized (
      select ord, account from owned where capable
    ), admission as materialized (
      select a.account, a.admitted
      from (select array_agg(account order by account) as accounts, array_agg(n order by account) as wanted
            from (select account, count(*)::integer as n from sendable group by account) w) g
      cross join lateral message_queue_admit_many(g.accounts, g.wanted, $1) a
    ), admitted as materialized (
      select o.ord
      from (select ord, account, row_number() over (partition by account order by ord) as rank from sendable) o
      join admission a on a.account = o.account where o.rank <= a.admitted
    ), job as (
      insert into jobs (${JOB_COLUMNS.join(', ')})
      select ${job.join(', ')} from input join admitted using (ord) order by ord
    ), message as (
      insert into messages (${MESSAGE_COLUMNS.join(', ')})
      select ${message.join(', ')} from input join admitted using (ord) order by m_account_sid, ord
    )
    select o.ord is not null as owned, coalesce(o.capable, false) as capable, a.ord is not null as admitted
    from input i left join owned o using (ord) left join admitted a using (ord) order by i.ord`;
})();

nameStatement(SEND_BATCH);

/** What `sendBatch` did with one send: wrote the message and its job, or why it wrote nothing. */
export type SendOutcome = 'sent' | 'from_number_not_owned' | 'from_number_not_capable' | 'message_queue_full';

/** A message as an API send queues it, with its dispatch job. */
export interface Send {
  message: MessageRow;
  job: NewJob;
}

/**
 * PostgreSQL: API sends in one statement, autocommitted (one round trip and one commit for all of them): for each, the
 * check that its account holds the sending number, the admission under `quota` (migration 031's function, whose
 * advisory locks last exactly this statement's transaction), the message's dispatch job and the message. Each send is
 * all of it or nothing, with the reason, in the order given.
 */
export async function sendBatch(db: Db, sends: readonly Send[], quota: number): Promise<SendOutcome[]> {
  const parameters = [
    quota,
    ...JOB_COLUMNS.map((column) => sends.map((send) => send.job[column])),
    ...MESSAGE_COLUMNS.map((column) => sends.map((send) => send.message[column])),
  ];
  const { rows } = await db.executeQuery<{ owned: boolean; capable: boolean; admitted: boolean }>(
    CompiledQuery.raw(SEND_BATCH, parameters),
  );
  if (rows.length !== sends.length) throw new Error(`a batch of ${sends.length} sends answered ${rows.length} rows`);
  return rows.map((row) => {
    if (!row.owned) return 'from_number_not_owned';
    if (!row.capable) return 'from_number_not_capable';
    return row.admitted ? 'sent' : 'message_queue_full';
  });
}

export async function insertMessage(db: Conn, row: MessageRow): Promise<void> {
  await insertRow.run(db, row);
}

export function findMessage(db: Conn, accountSid: string, sid: string): Promise<MessageRow | undefined> {
  return selectOwned.first(db, accountSid, sid);
}

/** The sids of the account's messages still queued from `from` (scheduled ones too). */
export async function queuedFrom(db: Conn, accountSid: string, from: string): Promise<string[]> {
  const rows = await db
    .selectFrom('messages')
    .select('sid')
    .where('account_sid', '=', accountSid)
    .where('from_number', '=', from)
    .where('status', '=', 'queued')
    .execute();
  return rows.map((row) => row.sid);
}

/** Forgets a sender's pacing: its next send may go at once (its next holder's, after a release). */
export async function forgetSendSlot(db: Conn, from: string): Promise<void> {
  await db.deleteFrom('carrier_send_slots').where('from_number', '=', from).execute();
}

export function messageBySid(db: Conn, sid: string): Promise<MessageRow | undefined> {
  return selectBySid.first(db, sid);
}

/** Whether the message is still queued and its account still holds the number it is sent from. */
export async function queuedFromHeld(db: Conn, sid: string): Promise<boolean> {
  return (await selectQueuedFromHeld.first(db, sid)) !== undefined;
}

/**
 * Moves a queued message to `sending` only if its account still holds the number it is sent from: its new row, or
 * undefined when it is no longer queued or its sender was released (`failUnheldSender` tells them apart).
 */
export function markSendingFromHeld(db: Conn, sid: string, set: Change): Promise<MessageRow | undefined> {
  return updateQueuedFromHeld.first(db, sid, set);
}

/** Moves a message to a new status only if it is in one of `from`; returns the updated row, or undefined. */
export function transition(
  db: Conn,
  sid: string,
  from: readonly MessageStatus[],
  set: Change,
  extra?: { sendAtAfter?: string },
): Promise<MessageRow | undefined> {
  return extra?.sendAtAfter
    ? updateScheduledIn.first(db, sid, from, set, extra.sendAtAfter)
    : updateIn.first(db, sid, from, set);
}

// PostgreSQL only: SQLite has no update inside `with`.
const updateInWithHolder = prepared((db, sid: string, from: readonly MessageStatus[], set: Change) =>
  db
    .with('updated', () => updateFrom(db, sid, from, set).returningAll())
    .selectFrom('updated')
    .leftJoin('incoming_numbers', 'incoming_numbers.phone_number', 'updated.to_number')
    .selectAll('updated')
    .select([
      'incoming_numbers.sid as holder_sid',
      'incoming_numbers.account_sid as holder_account_sid',
      'incoming_numbers.sms_url as holder_sms_url',
    ]),
);

/**
 * PostgreSQL: `transition`, and who holds the message's recipient number on this platform (undefined: nobody), read
 * by the same statement: one round trip where the update and the read apart take two. Undefined when the message was
 * not in one of `from`.
 */
export async function transitionWithHolder(
  db: Tx['db'],
  sid: string,
  from: readonly MessageStatus[],
  set: Change,
): Promise<{ row: MessageRow; holder: Holder | undefined } | undefined> {
  const found = await updateInWithHolder.first(db, sid, from, set);
  if (!found) return undefined;
  const { holder_sid, holder_account_sid, holder_sms_url, ...row } = found;
  const holder =
    holder_sid === null ? undefined : { sid: holder_sid, account_sid: holder_account_sid!, sms_url: holder_sms_url };
  return { row, holder };
}

/** A row of `sendingAtFreeSlot`: whether the message was to send, the slot, and the message's columns, all null when
 * it was not marked. */
type SlotAndRow = { sendable: boolean; slot: string | null } & { [K in keyof MessageRow]: MessageRow[K] | null };

// PostgreSQL only (a data-modifying WITH). A message no longer queued, or whose account no longer holds its sender,
// takes no slot (a released number's slots are its new holder's); the update is `markSendingFromHeld`'s, its row
// locked after the slot's as in every transaction that takes a slot. The slot's text is compared byte by byte, as
// carrier_send_slot_take compares it.
const sendingAtFreeSlot = prepared(
  (db, sid: string, from: string, now: string, notAfter: string, intervalMs: number) => ({
    compile: () =>
      sql<SlotAndRow>`
        with target as (
          select m.sid from messages m
          where m.sid = ${sid} and m.status = 'queued' and ${sql.raw(holdsSender('m.account_sid', 'm.from_number'))}
        ),
        slot as (select carrier_send_slot_take(${from}, ${now}, ${notAfter}, ${intervalMs}) as at from target),
        sending as (
          update messages set status = 'sending', date_updated = ${now}
          where sid = (select sid from target) and status = 'queued' and (select at from slot) collate "C" <= ${now}
          returning *
        )
        select exists (select 1 from target) as sendable, slot.at as slot, sending.*
        from (select 1) as one left join slot on true left join sending on true`.compile(db),
  }),
);

/**
 * PostgreSQL: when the message is still queued and its account holds `from`, takes `from`'s next send slot,
 * `intervalMs` after the one before and no later than `notAfter` (migration 028's carrier_send_slot_take, as
 * carrier/store.ts takes it), and when that slot is `now`, marks the message `sending` (its `date_updated` now): one
 * round trip where the statements apart take three. Whether it was to send (false: nothing taken), the slot (null:
 * none before `notAfter`, nothing taken), and the message's new row when it was marked.
 */
export async function takeSlotAndSend(
  db: Tx['db'],
  sid: string,
  from: string,
  slot: { now: string; notAfter: string; intervalMs: number },
): Promise<{ sendable: boolean; slot: string | null; sending: MessageRow | undefined }> {
  const found = await sendingAtFreeSlot.first(db, sid, from, slot.now, slot.notAfter, slot.intervalMs);
  if (!found) throw new Error('the send slot statement answered no row');
  const { sendable, slot: at, ...row } = found;
  return { sendable, slot: at, sending: row.sid === null ? undefined : (row as MessageRow) };
}

export async function deleteMessage(
  db: Conn,
  accountSid: string,
  sid: string,
  statuses: readonly MessageStatus[],
): Promise<boolean> {
  const result = await db
    .deleteFrom('messages')
    .where('sid', '=', sid)
    .where('account_sid', '=', accountSid)
    .where('status', 'in', statuses)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export function listMessages(
  db: Db,
  accountSid: string,
  filters: MessageFilters,
  page: PageRequest,
): Promise<Page<MessageRow>> {
  return paginate(messagesWhere(db, accountSid, filters), page);
}

/** The account's messages that pass `filters`, unordered: each filter has an index that leads to it (016, 021). */
export function messagesWhere(db: Db, accountSid: string, filters: MessageFilters) {
  let query = db.selectFrom('messages').selectAll().where('account_sid', '=', accountSid);
  if (filters.to) query = query.where('to_number', '=', filters.to);
  if (filters.from) query = query.where('from_number', '=', filters.from);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.direction) query = query.where('direction', '=', filters.direction);
  if (filters.createdAfter) query = query.where('date_created', '>=', filters.createdAfter);
  if (filters.createdBefore) query = query.where('date_created', '<', filters.createdBefore);
  return query;
}
