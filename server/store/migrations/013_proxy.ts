// Proxy sessions: two participants masked behind numbers of the account's pool, and what was relayed between them.
// The pool's one rule lives in the database: a participant's number and its proxy number pair up in one open session
// at most (a partial unique index over the participants of open sessions), so concurrent creations cannot both take
// a pair, whatever instance runs them.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('proxy_sessions')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('account_sid', 'text', (c) => c.notNull().references('accounts.sid'))
    .addColumn('unique_name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('ttl', 'integer', (c) => c.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('date_expiry', 'text')
    .addColumn('closed_reason', 'text')
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .addColumn('date_ended', 'text')
    .execute();
  await db.schema
    .createIndex('proxy_sessions_account')
    .on('proxy_sessions')
    .columns(['account_sid', 'date_created', 'sid'])
    .execute();
  // unique_name is unique among the account's sessions that have not ended (open, in-progress).
  await db.schema
    .createIndex('proxy_sessions_open_name')
    .on('proxy_sessions')
    .columns(['account_sid', 'unique_name'])
    .unique()
    .where(sql.ref('date_ended'), 'is', null)
    .execute();

  await db.schema
    .createTable('proxy_participants')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('session_sid', 'text', (c) => c.notNull())
    .addColumn('account_sid', 'text', (c) => c.notNull())
    // 0 or 1: the participant's place in the session, as created.
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('proxy_identifier', 'text', (c) => c.notNull())
    .addColumn('friendly_name', 'text')
    // 1 while its session is open or in progress, 0 once it ended: only open pairs are unique.
    .addColumn('open', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('proxy_participants_session').on('proxy_participants').column('session_sid').execute();
  // The pool's rule, and the relay's lookup (a message from `identifier` to `proxy_identifier`).
  await db.schema
    .createIndex('proxy_participants_open_pair')
    .on('proxy_participants')
    .columns(['proxy_identifier', 'identifier'])
    .unique()
    .where(sql.ref('open'), '=', 1)
    .execute();

  await db.schema
    .createTable('proxy_interactions')
    .addColumn('sid', 'text', (c) => c.primaryKey())
    .addColumn('session_sid', 'text', (c) => c.notNull())
    .addColumn('account_sid', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('from_participant_sid', 'text', (c) => c.notNull())
    .addColumn('to_participant_sid', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('media_url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('inbound_sid', 'text', (c) => c.notNull())
    .addColumn('outbound_sid', 'text')
    .addColumn('duration', 'integer')
    .addColumn('date_created', 'text', (c) => c.notNull())
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('proxy_interactions_session')
    .on('proxy_interactions')
    .columns(['session_sid', 'date_created', 'sid'])
    .execute();
  // A relayed message's or bridged leg's changes find their interaction.
  await db.schema
    .createIndex('proxy_interactions_outbound')
    .on('proxy_interactions')
    .column('outbound_sid')
    .where(sql.ref('outbound_sid'), 'is not', null)
    .execute();
}
