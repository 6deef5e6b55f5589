// GET/POST /v1/account: the account the key belongs to and its settings (for now the verify callback URL).
// Settings live beside the account row, in account_settings, so features add columns there, not to accounts.
import type { components } from '../../generated/openapi.js';
import type { Store } from '../store/db.js';
import { errors } from '../errors.js';
import { nowIso } from '../clock.js';
import { assertUrlsAllowed, type PrivateAddressPolicy } from '../webhooks/url-policy.js';
import { accountWithSettings, setVerifyCallbackUrl } from './store.js';

export type AccountRecord = components['schemas']['Account'];
export type UpdateAccountInput = components['schemas']['UpdateAccountRequest'];

export class AccountSettingsService {
  constructor(
    private readonly store: Store,
    /** Which non-public addresses given URLs may point at (WEBHOOK_ALLOW_PRIVATE). */
    private readonly privateAddresses: PrivateAddressPolicy,
  ) {}

  async get(accountSid: string): Promise<AccountRecord> {
    const row = await accountWithSettings(this.store.db, accountSid);
    if (!row) throw errors.noSuchAccount();
    const updated =
      row.settings_updated && row.settings_updated > row.date_updated ? row.settings_updated : row.date_updated;
    return {
      sid: row.sid,
      name: row.name,
      verify_callback_url: row.verify_callback_url ?? null,
      date_created: row.date_created,
      date_updated: updated,
    };
  }

  async update(accountSid: string, input: UpdateAccountInput): Promise<AccountRecord> {
    assertUrlsAllowed(this.privateAddresses, { verify_callback_url: input.verify_callback_url });
    if (input.verify_callback_url !== undefined) {
      const url = input.verify_callback_url === '' ? null : input.verify_callback_url;
      const now = nowIso(this.store.clock);
      await setVerifyCallbackUrl(this.store.db, accountSid, url, now);
    }
    return this.get(accountSid);
  }
}
