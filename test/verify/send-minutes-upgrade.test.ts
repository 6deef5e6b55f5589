// Migration 030's counts of each account's verification sends per minute, which the hourly cap reads first: the sends
// recorded before it are counted too, or an account could send a second hour's worth right after the upgrade.
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/db.js';
import { sendsBoundSince, sendsSince } from '../../server/verify/store.js';
import { ENGINES } from '../support/server.js';
import { freshDatabase } from '../support/database.js';

const BEFORE_030 = '029_job_held';

async function recordOldSend(store: Store, accountSid: string, to: string, dateSent: string): Promise<void> {
  await store.db
    .insertInto('verification_sends')
    .values({
      account_sid: accountSid,
      verification_sid: `VE${to.slice(1)}`,
      to_number: to,
      channel: 'sms',
      date_sent: dateSent,
    })
    .execute();
}

describe.each(ENGINES)('the per-minute counts of verification sends (%s)', (engine) => {
  const disposals: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(disposals.splice(0).map((dispose) => dispose()));
  });

  it('counts the sends recorded before 030 in the bound the hourly cap reads first', async () => {
    const db = freshDatabase(engine);
    disposals.push(() => db.dispose());
    const before = await db.open({ migrateTo: BEFORE_030 });
    const now = Date.now();
    const at = (msAgo: number) => new Date(now - msAgo).toISOString();
    await recordOldSend(before, 'ACcapped', '+14155550101', at(50 * 60_000));
    await recordOldSend(before, 'ACcapped', '+14155550102', at(10 * 60_000));
    await recordOldSend(before, 'ACcapped', '+14155550103', at(1_000));
    await recordOldSend(before, 'ACother', '+14155550104', at(1_000));
    // Older than the day the counts are kept: not copied.
    await recordOldSend(before, 'ACold', '+14155550105', at(2 * 86_400_000));
    await before.close();

    const after = await db.open();
    const hourAgo = at(3_600_000);
    expect((await sendsSince(after.db, 'ACcapped', hourAgo)).count).toBe(3);
    expect(await sendsBoundSince(after.db, 'ACcapped', hourAgo)).toBe(3);
    expect(await sendsBoundSince(after.db, 'ACother', hourAgo)).toBe(1);
    const old = after.db.selectFrom('verification_send_minutes').where('account_sid', '=', 'ACold').selectAll();
    expect(await old.execute()).toEqual([]);
  });
});
