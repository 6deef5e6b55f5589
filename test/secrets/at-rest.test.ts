// What a copy of the database alone gives away: after a full OTP flow of an account whose webhooks are configured,
// the raw database (SQLite: the file and its write-ahead log, byte for byte; PostgreSQL: every row of every table
// of the schema) holds no OTP code, no API key, no webhook signing secret and no server secret in clear. A code
// sent by voice is spoken by a recorded call (its instructions, machine state and recording's timeline hold it).
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import { ENGINES, useTestServer, type UsedTestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode } from '../verify/flow.js';

/** Everything the database holds, as text. */
async function rawDatabase(t: UsedTestServer): Promise<string> {
  const { store } = t.server.services;
  if (store.dialect === 'sqlite') {
    const file = path.join(t.config.dataDir, 'telephony.sqlite');
    const parts = [file, `${file}-wal`].filter((f) => fs.existsSync(f));
    return parts.map((f) => fs.readFileSync(f).toString('latin1')).join('\n');
  }
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = current_schema()`.execute(store.db);
  expect(tables.rows.length).toBeGreaterThan(10);
  const dumps = await Promise.all(
    tables.rows.map(({ table_name }) => sql`select * from ${sql.table(table_name)}`.execute(store.db)),
  );
  return JSON.stringify(dumps.map((d) => d.rows));
}

describe.each(ENGINES)('secrets at rest (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_VERIFY });
  const receiver = useReceiver();
  beforeEach(async () => {
    const { response } = await t.account.client.POST('/v1/account', { body: { verify_callback_url: receiver.url } });
    expect(response.status).toBe(200);
  });

  it('holds no OTP code, API key, webhook secret or server secret in clear after a full OTP flow', async () => {
    const client = t.account.client;
    // Approved after a wrong code.
    const approved = await sendCode(client, { to: freshNumber(), channel: 'sms', code_length: 8 });
    const approvedCode = (await deliveredCode(client, approved.to)).code;
    const wrong = approvedCode.startsWith('0') ? '11111111' : '00000000';
    expect((await check(client, { verification_sid: approved.sid, code: wrong })).data?.valid).toBe(false);
    expect((await check(client, { verification_sid: approved.sid, code: approvedCode })).data?.status).toBe('approved');
    // Canceled, and one left pending (its code sealed, so that it can be sent again).
    const canceled = await sendCode(client, { to: freshNumber(), channel: 'whatsapp', code_length: 8 });
    const canceledCode = (await deliveredCode(client, canceled.to)).code;
    await client.POST('/v1/verify/{sid}', { params: { path: { sid: canceled.sid } }, body: { status: 'canceled' } });
    const pending = await sendCode(client, { to: freshNumber(), channel: 'sms', code_length: 8 });
    const pendingCode = (await deliveredCode(client, pending.to)).code;
    // Spoken by a call, recorded, then approved.
    const spoken = await sendCode(client, { to: freshNumber(), channel: 'voice', code_length: 8 });
    const { code: spokenCode, text: spokenText } = await deliveredCode(client, spoken.to);
    await waitUntil(
      () =>
        t.server.services.store.db
          .selectFrom('recordings')
          .innerJoin('calls', 'calls.sid', 'recordings.call_sid')
          .select('recordings.sid')
          .where('calls.to_number', '=', spoken.to)
          .where('calls.status', '=', 'completed')
          .where('recordings.status', '=', 'completed')
          .executeTakeFirst(),
      20_000,
      'the voice code call and its recording',
    );
    expect((await check(client, { verification_sid: spoken.sid, code: spokenCode })).data?.status).toBe('approved');

    // The webhooks went out signed with the account's secret, which the server opened from its sealed copy.
    await receiver.waitFor((all) => all.some((w) => w.json?.type === 'verification.approved'));
    const hook = receiver.all.find((w) => w.json?.type === 'verification.approved')!;
    expect(() => new Webhook(t.account.webhookSecret).verify(hook.body, hook.headers)).not.toThrow();

    const raw = await rawDatabase(t);
    // What it reads is the data: the rows of this flow are there.
    for (const sid of [t.account.sid, approved.sid, canceled.sid, pending.sid, spoken.sid]) expect(raw).toContain(sid);
    const secrets = {
      approvedCode,
      canceledCode,
      pendingCode,
      spokenCode,
      spokenText,
      // The spoken digits ("1, 2, 3, ..."), wherever they would appear without the rest of the text.
      spokenDigits: spokenCode.split('').join(', '),
      apiKey: t.account.apiKey,
      webhookSecret: t.account.webhookSecret.slice('whsec_'.length),
      serverSecret: t.server.services.secretKey,
    };
    const found = Object.entries(secrets).filter(([, secret]) => raw.includes(secret));
    expect(found.map(([name]) => name)).toEqual([]);
    expect(raw).not.toContain('whsec_');
    // The handset forgot the codes of the verifications that ended, and keeps the pending one's sealed.
    const handset = await t.server.services.store.db
      .selectFrom('sandbox_otp_deliveries')
      .select('verification_sid')
      .where('account_sid', '=', t.account.sid)
      .execute();
    expect(handset).toEqual([{ verification_sid: pending.sid }]);
  });
});
