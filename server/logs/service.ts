// What the dashboard's logs read: an account's messages, calls, verifications and proxy sessions, newest first,
// filtered and paged both ways by keyset on indexes (never OFFSET, never a count), and per record its status
// timeline and every webhook delivery with its attempts. Records come out as the API shows them (views), so what a
// view leaves out (a verification's code) never reaches a page.
import type { Store } from '../store/db.js';
import type { ProxySessionRow, VerificationRow } from '../store/schema.js';
import { paginateBothWays, type PageRequest, type TwoWayPage } from '../store/pagination.js';
import { messagesWhere } from '../messages/store.js';
import { callsWhere } from '../calls/store/calls.js';
import { verificationsWhere } from '../verify/store.js';
import { sessionsWhere } from '../proxy/session-store.js';
import { messageView, type MessageRecord } from '../messages/view.js';
import { callView, type CallRecord } from '../calls/view.js';
import type { WebhookService } from '../webhooks/service.js';
import type { DeliveryEvent } from '../webhooks/queue.js';
import { errors } from '../errors.js';

/** The filters every log offers (each list takes those its records have). */
export interface LogFilters {
  status?: string;
  to?: string;
  from?: string;
  /** Inclusive, ISO 8601. */
  createdAfter?: string;
  /** Exclusive, ISO 8601. */
  createdBefore?: string;
}

export type LogPage = PageRequest & { before?: string };

/** A verification in a list: never its code (the rows hold only its hash and a sealed copy, left out here). */
export type VerificationSummary = Pick<VerificationRow, 'sid' | 'channel' | 'status' | 'date_created'> & {
  to: string;
};

export type ProxySessionSummary = Pick<
  ProxySessionRow,
  'sid' | 'unique_name' | 'mode' | 'status' | 'date_created' | 'date_ended'
>;

/** One step of a record's status timeline. */
export interface TimelineEntry {
  status: string;
  at: string;
}

const STATUS = {
  messages: [
    'scheduled',
    'queued',
    'sending',
    'sent',
    'delivered',
    'undelivered',
    'failed',
    'canceled',
    'read',
    'received',
  ],
  calls: ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'],
  verifications: ['pending', 'approved', 'canceled', 'expired', 'max_attempts_reached', 'failed'],
  proxySessions: ['open', 'in-progress', 'closed', 'failed'],
} as const;

export type LogKind = keyof typeof STATUS;

/** The statuses a log can be filtered by. */
export function statusesOf(kind: LogKind): readonly string[] {
  return STATUS[kind];
}

function checkStatus(kind: LogKind, status: string | undefined): any {
  if (status && !STATUS[kind].includes(status as never)) {
    throw errors.invalidField('status', `must be one of ${STATUS[kind].join(', ')}`);
  }
  return status || undefined;
}

export class LogService {
  constructor(
    private readonly store: Store,
    private readonly webhooks: WebhookService,
  ) {}

  async messages(accountSid: string, filters: LogFilters, page: LogPage): Promise<TwoWayPage<MessageRecord>> {
    const where = messagesWhere(this.store.db, accountSid, {
      ...filters,
      status: checkStatus('messages', filters.status),
    });
    const result = await paginateBothWays(where, page);
    return { ...result, data: result.data.map(messageView) };
  }

  async calls(accountSid: string, filters: LogFilters, page: LogPage): Promise<TwoWayPage<CallRecord>> {
    const where = callsWhere(this.store.db, accountSid, { ...filters, status: checkStatus('calls', filters.status) });
    const result = await paginateBothWays(where, page);
    return { ...result, data: result.data.map(callView) };
  }

  async verifications(
    accountSid: string,
    filters: LogFilters,
    page: LogPage,
  ): Promise<TwoWayPage<VerificationSummary>> {
    const where = verificationsWhere(this.store.db, accountSid, {
      ...filters,
      status: checkStatus('verifications', filters.status),
    });
    const result = await paginateBothWays(where, page);
    return {
      ...result,
      data: result.data.map((row) => ({
        sid: row.sid,
        to: row.to_number,
        channel: row.channel,
        status: row.status,
        date_created: row.date_created,
      })),
    };
  }

  async proxySessions(
    accountSid: string,
    filters: Pick<LogFilters, 'status'>,
    page: LogPage,
  ): Promise<TwoWayPage<ProxySessionSummary>> {
    const where = sessionsWhere(this.store.db, accountSid, checkStatus('proxySessions', filters.status));
    const result = await paginateBothWays(where, page);
    return {
      ...result,
      data: result.data.map(({ sid, unique_name, mode, status, date_created, date_ended }) => ({
        sid,
        unique_name,
        mode,
        status,
        date_created,
        date_ended,
      })),
    };
  }

  /** Every webhook event of these resources of the account (a record, and a call's recordings) with its attempts. */
  deliveries(accountSid: string, resourceSids: string[]): Promise<DeliveryEvent[]> {
    return this.webhooks.deliveries(accountSid, resourceSids);
  }

  /** "Retry now" for a given-up event of the account: due again at once, for one more attempt. */
  retryNow(accountSid: string, eventId: string): Promise<boolean> {
    return this.webhooks.retryNow(accountSid, eventId);
  }
}

/**
 * A record's status timeline: its creation, then each status its webhooks reported (`<kind>.<status>` events, in
 * the order recorded); a record without them (no status callback) shows its own timestamps and current status.
 */
export function timeline(
  record: { status: string; date_created: string; date_updated: string; date_sent?: string | null },
  first: string,
  events: DeliveryEvent[],
): TimelineEntry[] {
  const entries: TimelineEntry[] = [{ status: first, at: record.date_created }];
  const reported = events
    .map((e) => ({ status: e.type.slice(e.type.indexOf('.') + 1), at: e.date_created }))
    .filter((e) => e.status !== first && !e.status.includes('.'));
  if (reported.length) return [...entries, ...reported];
  if (record.date_sent && record.status !== 'sent') entries.push({ status: 'sent', at: record.date_sent });
  if (record.status !== first) entries.push({ status: record.status, at: record.date_updated });
  return entries;
}
