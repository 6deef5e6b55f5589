// PostgreSQL: a job's acknowledgement (its delete when finished, its update when it carries on as a next step) that
// checks its lease itself, so that it may go to the database with the transaction's commit rather than alone (see
// named-statements.ts, deferred writes): `job_held` raises when the statement changed no row (another instance
// took the job for dead and holds it now), which fails the commit and rolls back the work, as the check in
// JavaScript did before it. SQLite has no round trips: unchanged.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create function job_held(changed bigint, job bigint) returns integer
    language plpgsql volatile set search_path from current as $$
    begin
      if changed <> 1 then
        raise exception 'job % lease lost', job using errcode = 'P0001';
      end if;
      return 1;
    end $$
  `.execute(db);
}
