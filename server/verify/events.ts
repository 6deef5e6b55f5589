// Webhooks of verifications: every status change after creation goes to the account's verify_callback_url
// (when set) as `verification.<status>`, through the one webhook engine, in the transaction of the change.
import type { Tx } from '../store/db.js';
import type { VerificationRow } from '../store/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import { verifyCallbackUrl } from '../accounts/store.js';
import { sendsOf } from './store.js';
import { verificationView } from './view.js';

export class VerificationEvents {
  constructor(private readonly webhooks: WebhookService) {}

  async statusChanged(tx: Tx, row: VerificationRow): Promise<void> {
    const url = await verifyCallbackUrl(tx.db, row.account_sid);
    if (!url) return;
    await this.webhooks.enqueue(tx, {
      accountSid: row.account_sid,
      url,
      type: `verification.${row.status}`,
      resourceSid: row.sid,
      data: verificationView(row, await sendsOf(tx.db, row.sid)),
    });
  }
}
