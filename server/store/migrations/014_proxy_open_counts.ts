// The MAX_OPEN_PROXY_SESSIONS quota reads how many sessions of an account have not ended from one row, which
// triggers on proxy_sessions keep (as 011 does for queued messages), rather than counting up to the quota's
// thousands of sessions on every creation. On PostgreSQL the trigger's upsert locks the account's row until the
// creating transaction ends, so concurrent creations of one account see each other's count and the quota is exact.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('proxy_open_counts')
    .addColumn('account_sid', 'text', (c) => c.primaryKey())
    .addColumn('open', 'integer', (c) => c.notNull())
    .execute();
  await sql`
    insert into proxy_open_counts (account_sid, open)
    select account_sid, count(*) from proxy_sessions where date_ended is null group by account_sid
  `.execute(db);
  if (dialect === 'postgres') {
    await sql`
      create function proxy_open_count() returns trigger language plpgsql as $$
      declare
        delta integer := 0;
        account text;
      begin
        if tg_op in ('INSERT', 'UPDATE') and new.date_ended is null then
          delta := delta + 1;
          account := new.account_sid;
        end if;
        if tg_op in ('UPDATE', 'DELETE') and old.date_ended is null then
          delta := delta - 1;
          account := old.account_sid;
        end if;
        if delta <> 0 then
          insert into proxy_open_counts (account_sid, open) values (account, delta)
          on conflict (account_sid) do update set open = proxy_open_counts.open + excluded.open;
        end if;
        return null;
      end $$
    `.execute(db);
    await sql`
      create trigger proxy_sessions_open_count after insert or update of date_ended or delete on proxy_sessions
      for each row execute function proxy_open_count()
    `.execute(db);
    return;
  }
  const bump = (account: string, delta: string) => `
    insert into proxy_open_counts (account_sid, open) values (${account}, ${delta})
    on conflict (account_sid) do update set open = open + excluded.open;`;
  await sql
    .raw(
      `create trigger proxy_sessions_open_insert after insert on proxy_sessions when new.date_ended is null
       begin ${bump('new.account_sid', '1')} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger proxy_sessions_open_update after update of date_ended on proxy_sessions
       when (old.date_ended is null) <> (new.date_ended is null)
       begin ${bump('new.account_sid', 'case when new.date_ended is null then 1 else -1 end')} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger proxy_sessions_open_delete after delete on proxy_sessions when old.date_ended is null
       begin ${bump('old.account_sid', '-1')} end`,
    )
    .execute(db);
}
