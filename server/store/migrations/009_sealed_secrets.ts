// Secrets at rest: webhook signing secrets are sealed with the server secret (see accounts/webhook-secrets.ts), and
// the sandbox handset's record of a delivered code keeps the code and its text sealed instead of in clear. The
// handset records of before are dropped rather than sealed: they are a test network's inbox, and a code still
// pending is sent again by a new send. (The generated server secret leaves server_settings at the first start,
// see accounts/server-secret.ts: it needs DATA_DIR, which a migration does not know.)
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';
import type { MigrationContext } from './index.js';
import { WebhookSecretBox } from '../../accounts/webhook-secrets.js';

export async function up(db: Kysely<any>, dialect: Dialect, context: MigrationContext): Promise<void> {
  // SQLite would leave the clear values in the pages they are freed from: zero them (here only, it costs writes).
  if (dialect === 'sqlite') await sql`pragma secure_delete = on`.execute(db);
  const accounts: { sid: string; webhook_secret: string }[] = await db
    .selectFrom('accounts')
    .select(['sid', 'webhook_secret'])
    .execute();
  const clear = accounts.filter((a) => !WebhookSecretBox.isSealed(a.webhook_secret));
  if (clear.length > 0) {
    if (!context.serverSecret)
      throw new Error('sealing the webhook secrets of existing accounts needs the server secret');
    const box = new WebhookSecretBox(await context.serverSecret(db));
    for (const { sid, webhook_secret } of clear) {
      await db
        .updateTable('accounts')
        .set({ webhook_secret: box.seal(sid, webhook_secret) })
        .where('sid', '=', sid)
        .execute();
    }
  }

  await db.schema.dropTable('sandbox_otp_deliveries').execute();
  await db.schema
    .createTable('sandbox_otp_deliveries')
    .addColumn('account_sid', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('verification_sid', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    // The code and the text that carried it, as JSON, sealed (bound to the verification's sid).
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('date_sent', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sandbox_otp_deliveries_pk', ['account_sid', 'to_number'])
    .execute();
  if (dialect === 'sqlite') await sql`pragma secure_delete = off`.execute(db);
}
