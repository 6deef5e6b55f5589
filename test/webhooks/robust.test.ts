// The delivery path holds up against one tenant's bad data: an account whose stored webhook secret cannot be opened
// fails its own events alone (the rest of the batch is delivered).
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { start } from '../../server/app.js';
import { ENGINES, testEnv } from '../support/server.js';
import { freshDatabase } from '../support/database.js';
import { useCleanups } from '../support/cleanups.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver } from '../support/webhook-receiver.js';

describe.each(ENGINES)('an account whose webhook secret cannot be opened (%s)', (engine) => {
  const cleanups = useCleanups();

  it("fails that account's events alone, with the reason, and delivers the other accounts' events at once", async () => {
    const db = freshDatabase(engine);
    cleanups.push(() => db.dispose());
    const store = await db.open();
    const errors: { msg: string; accountSid?: string }[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    const server = await start(loadConfig(testEnv(engine, db.dataDir)), { store, logger });
    cleanups.push(() => server.close());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    const { accounts, webhooks } = server.services;
    const good = (await accounts.createAccount('good')).account;
    const broken = (await accounts.createAccount('broken')).account;
    // As an old instance would have left it: stored in clear, which no server secret opens.
    await store.db
      .updateTable('accounts')
      .set({ webhook_secret: 'whsec_c3RvcmVkIGluIGNsZWFyIGJ5IG1pc3Rha2U=' })
      .where('sid', '=', broken.sid)
      .execute();

    // Recorded in one transaction, so they are due together and claimed in the same batch.
    const ids = await store.transaction(async (tx) => {
      const enqueue = (accountSid: string, n: number) =>
        webhooks.enqueue(tx, {
          accountSid,
          url: `${receiver.url}/${accountSid}`,
          type: 'test.event',
          resourceSid: `${accountSid}-${n}`,
          data: { n },
        });
      return {
        good: [await enqueue(good.sid, 1), await enqueue(good.sid, 2)],
        broken: [await enqueue(broken.sid, 1), await enqueue(broken.sid, 2)],
      };
    });
    const all = [...ids.good, ...ids.broken];
    const events = await waitUntil(async () => {
      const rows = await store.db.selectFrom('webhook_events').selectAll().where('id', 'in', all).execute();
      return rows.every((e) => e.status !== 'pending') && rows;
    });
    const statusOf = (id: string) => events.find((e) => e.id === id)!;

    for (const id of ids.good) expect(statusOf(id)).toMatchObject({ status: 'delivered', attempts: 1, claims: 0 });
    expect(receiver.received.map((w) => w.path).sort()).toEqual([`/${good.sid}`, `/${good.sid}`]);
    const verifier = new Webhook(good.webhook_secret);
    for (const w of receiver.received) verifier.verify(w.body, w.headers);

    const reason = `the webhook secret of account ${broken.sid} cannot be opened with this server secret`;
    for (const id of ids.broken) {
      expect(statusOf(id)).toMatchObject({ status: 'failed', attempts: 1, claims: 0 });
      const attempts = await store.db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', id).execute();
      expect(attempts).toMatchObject([{ attempt: 1, response_status: null, error: reason }]);
    }
    // One line for the account (its two events were in one batch), naming it.
    const lines = errors.filter((e) => e.msg === 'webhook secret cannot be opened; its events fail');
    expect(lines).toHaveLength(1);
    expect(lines[0].accountSid).toBe(broken.sid);
  });
});
