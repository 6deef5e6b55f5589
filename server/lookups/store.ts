// SQL of the platform signals (signals.ts): what the numbers, messages and verifications tables hold of a set of
// numbers, read by every lookup and every verification sent. It reads three areas' tables in one statement (a
// `union all` of four grouped selects) instead of each area's store answering its part: one statement and one
// await instead of four, about a tenth of a single lookup's main thread.
import { sql } from 'kysely';
import type { Db, Tx } from '../store/db.js';
import type { MessageRow, MessageStatus } from '../store/schema.js';
import { prepared } from '../store/sqlite/prepared.js';

type Conn = Db | Tx['db'];

/** Which signal a row carries, and its two counts (PostgreSQL answers counts as strings). */
export interface SignalRow {
  kind: 'held' | 'volume' | 'outcomes' | 'verifications';
  number: string;
  a: number | string;
  b: number | string;
}

/** What counts as outbound traffic and its outcomes (signals.ts). */
export interface Outbound {
  directions: readonly MessageRow['direction'][];
  finished: readonly MessageStatus[];
  failed: readonly MessageStatus[];
}

const literal = <T>(text: string) => sql<T>([text] as unknown as TemplateStringsArray);

const selectSignals = prepared(
  (
    db,
    numbers: string[],
    directions: Outbound['directions'],
    finished: Outbound['finished'],
    failed: Outbound['failed'],
    hourAgo: string,
    dayAgo: string,
  ) =>
    db
      .selectFrom('incoming_numbers')
      .select([
        literal<SignalRow['kind']>(`'held'`).as('kind'),
        'phone_number as number',
        literal<number>('0').as('a'),
        literal<number>('0').as('b'),
      ])
      .where('phone_number', 'in', numbers)
      .unionAll(
        db
          .selectFrom('messages')
          .select((eb) => [
            literal<SignalRow['kind']>(`'volume'`).as('kind'),
            'from_number as number',
            eb.fn.countAll<number>().as('a'),
            eb.fn.count<number>('to_number').distinct().as('b'),
          ])
          .where('from_number', 'in', numbers)
          .where('direction', 'in', directions)
          .where('date_created', '>=', hourAgo)
          .groupBy('from_number'),
      )
      .unionAll(
        db
          .selectFrom('messages')
          .select((eb) => [
            literal<SignalRow['kind']>(`'outcomes'`).as('kind'),
            'from_number as number',
            eb.fn.countAll<number>().as('a'),
            eb.fn.sum<number>(eb.case().when('status', 'in', failed).then(1).else(0).end()).as('b'),
          ])
          .where('from_number', 'in', numbers)
          .where('direction', 'in', directions)
          .where('date_created', '>=', dayAgo)
          .where('status', 'in', finished)
          .groupBy('from_number'),
      )
      .unionAll(
        db
          .selectFrom('verification_sends as s')
          .innerJoin('verifications as v', 'v.sid', 's.verification_sid')
          .select((eb) => [
            literal<SignalRow['kind']>(`'verifications'`).as('kind'),
            's.to_number as number',
            eb.fn.countAll<number>().as('a'),
            eb.fn
              .count<number>(eb.case().when('v.status', '=', 'approved').then(eb.ref('v.sid')).end())
              .distinct()
              .as('b'),
          ])
          .where('s.to_number', 'in', numbers)
          .where('s.date_sent', '>=', dayAgo)
          .groupBy('s.to_number'),
      ),
);

/**
 * Every signal of `numbers` (at least one), one row per number and kind that has any: `held`; `volume`, outbound
 * messages since `hourAgo` (a) and their distinct recipients (b); `outcomes`, outbound messages since `dayAgo` that
 * ended in `finished` (a) and how many of them in `failed` (b); `verifications`, codes sent to the number since
 * `dayAgo` (a) and how many of the verifications behind them were approved (b).
 */
export function signalRows(
  db: Conn,
  numbers: string[],
  outbound: Outbound,
  hourAgo: string,
  dayAgo: string,
): Promise<SignalRow[]> {
  const { directions, finished, failed } = outbound;
  return selectSignals.all(db, numbers, directions, finished, failed, hourAgo, dayAgo);
}
