// Row types of every table, as Kysely sees them. Booleans are 0/1 integers and JSON is text on both engines.
import type { Generated } from 'kysely';

export interface AccountRow {
  sid: string;
  name: string;
  webhook_secret: string;
  date_created: string;
  date_updated: string;
}

export interface ApiKeyRow {
  sid: string;
  account_sid: string;
  key_hash: string;
  date_created: string;
  date_revoked: string | null;
}

export interface JobRow {
  id: Generated<number>;
  kind: string;
  payload: string;
  run_at: string;
  attempts: Generated<number>;
  max_attempts: number;
  ordering_key: string | null;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  dead: Generated<number>;
  date_created: string;
}

export interface ServerSettingRow {
  name: string;
  value: string;
}

export interface Database {
  accounts: AccountRow;
  api_keys: ApiKeyRow;
  jobs: JobRow;
  server_settings: ServerSettingRow;
}
