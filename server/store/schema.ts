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

export interface AddressRow {
  sid: string;
  account_sid: string;
  friendly_name: string | null;
  customer_name: string;
  street: string;
  city: string;
  region: string;
  postal_code: string;
  iso_country: string;
  status: 'pending' | 'verified' | 'rejected';
  rejection_reason: string | null;
  date_created: string;
  date_updated: string;
}

export interface IncomingNumberRow {
  sid: string;
  account_sid: string;
  phone_number: string;
  friendly_name: string;
  sms_url: string | null;
  sms_method: 'GET' | 'POST';
  voice_url: string | null;
  voice_method: 'GET' | 'POST';
  status_callback: string | null;
  /** JSON: {"voice": bool, "sms": bool, "mms": bool} */
  capabilities: string;
  iso_country: string;
  number_type: 'local' | 'mobile' | 'toll_free';
  address_sid: string | null;
  address_requirements: 'none' | 'any' | 'local';
  date_created: string;
  date_updated: string;
}

export interface Database {
  accounts: AccountRow;
  api_keys: ApiKeyRow;
  jobs: JobRow;
  server_settings: ServerSettingRow;
  addresses: AddressRow;
  incoming_numbers: IncomingNumberRow;
}
