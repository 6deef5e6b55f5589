// Accounts, API keys, the durable job table and server settings.
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';
import { autoId } from './columns.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_revoked', 'text')
    .execute();

  await autoId(db.schema.createTable('jobs'), dialect)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('ordering_key', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('dead', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['dead', 'run_at']).execute();
  await db.schema.createIndex('jobs_ordering').on('jobs').columns(['ordering_key', 'id']).execute();

  await db.schema
    .createTable('server_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
