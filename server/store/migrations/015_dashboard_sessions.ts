// Dashboard sign-ins: a session per sign-in, stored here so every instance accepts it. Only the SHA-256 digest of
// the session token is kept (as for API keys); the session names the key it was opened with, so revoking that key
// ends it, and `last_seen` ends it after DASHBOARD_IDLE_MINUTES without a request.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The first characters of a key, so a person can tell their keys apart in the dashboard (null for older keys).
  await db.schema.alterTable('api_keys').addColumn('prefix', 'text').execute();
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('key_sid', 'text', (c) => c.notNull().references('api_keys.sid'))
    // A one-time notice for the next page ("Address submitted"), plain text.
    .addColumn('flash', 'text')
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_key').on('dashboard_sessions').column('key_sid').execute();
  // Idle sessions are removed by their last request's time (at each sign-in).
  await db.schema.createIndex('dashboard_sessions_seen').on('dashboard_sessions').column('last_seen').execute();
}
