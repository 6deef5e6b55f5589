// Migration 025 numbers the verification sends already stored, per account in the order they were sent, so the
// hourly cap counts them from the ordinals exactly as it counted the rows before the upgrade.
import { afterEach, describe, expect, it } from 'vitest';
import { sendsSince } from '../../server/verify/store.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

describe.each(ENGINES)('migration 025, verification send ordinals (%s)', (engine) => {
  let dispose: () => Promise<void> = () => Promise.resolve();
  afterEach(() => dispose());

  it("numbers each account's stored sends by time, and the hourly window counts them as before", async () => {
    const db = freshDatabase(engine);
    dispose = () => db.dispose();
    const before = await db.open({ migrateTo: '024_fewer_verification_send_indexes' });
    const send = (account_sid: string, minute: number) => ({
      account_sid,
      verification_sid: `VE${minute}`,
      to_number: '+14155550100',
      channel: 'sms' as const,
      date_sent: new Date(Date.UTC(2026, 10, 26, 10, minute)).toISOString(),
    });
    // Stored out of time order (ids do not follow the times), two accounts interleaved.
    const rows = [send('AC1', 30), send('AC2', 5), send('AC1', 10), send('AC1', 50), send('AC2', 40)];
    await before.db.insertInto('verification_sends').values(rows).execute();
    await before.close();

    const store = await db.open();
    const numbered = await store.db
      .selectFrom('verification_sends')
      .select(['account_sid', 'date_sent', 'account_seq'])
      .orderBy('account_sid')
      .orderBy('date_sent')
      .execute();
    expect(numbered.map((r) => [r.account_sid, Number(r.account_seq)])).toEqual([
      ['AC1', 1],
      ['AC1', 2],
      ['AC1', 3],
      ['AC2', 1],
      ['AC2', 2],
    ]);
    const since = new Date(Date.UTC(2026, 10, 26, 10, 20)).toISOString();
    expect(await sendsSince(store.db, 'AC1', since)).toEqual({
      count: 2,
      oldest: send('AC1', 30).date_sent,
      latest: 3,
    });
    expect(await sendsSince(store.db, 'AC2', since)).toEqual({
      count: 1,
      oldest: send('AC2', 40).date_sent,
      latest: 2,
    });
    expect(await sendsSince(store.db, 'AC3', since)).toEqual({ count: 0, oldest: null, latest: 0 });
  });
});
