// Logs: the account's messages, calls, verifications and proxy sessions (filterable lists, newest first, paged
// both ways), and a page per record with its status timeline and every webhook delivery attempt, a "retry now" for
// a given-up event, and a call's recordings (played through a route of the session's account).
import type { Request, Response, Router } from 'express';
import { render } from '../render.js';
import { type DashboardContext, flashAndRedirect, sessionOf } from '../context.js';
import { ApiError } from '../../errors.js';
import { statusesOf, timeline, type LogFilters, type LogKind, type LogPage } from '../../logs/service.js';
import type { TwoWayPage } from '../../store/pagination.js';
import type { DeliveryEvent } from '../../webhooks/queue.js';
import type { Services } from '../../services.js';

type Nav = 'messages' | 'calls' | 'verifications' | 'proxy-sessions';
type Filter = 'status' | 'to' | 'from' | 'dates';

interface Row {
  sid: string;
  cells: string[];
}

interface LogList {
  kind: LogKind;
  nav: Nav;
  title: string;
  filters: Filter[];
  columns: string[];
  load(services: Services, accountSid: string, filters: LogFilters, page: LogPage): Promise<TwoWayPage<Row>>;
}

const rows = async <T>(page: Promise<TwoWayPage<T>>, row: (record: T) => Row): Promise<TwoWayPage<Row>> => {
  const result = await page;
  return { ...result, data: result.data.map(row) };
};

const LISTS: LogList[] = [
  {
    kind: 'messages',
    nav: 'messages',
    title: 'Messages',
    filters: ['status', 'to', 'from', 'dates'],
    columns: ['Message', 'Created', 'From', 'To', 'Status', 'Body'],
    load: (s, account, filters, page) =>
      rows(s.logs.messages(account, filters, page), (m) => ({
        sid: m.sid,
        cells: [m.date_created, m.from, m.to, m.status, m.body.length > 60 ? `${m.body.slice(0, 60)}…` : m.body],
      })),
  },
  {
    kind: 'calls',
    nav: 'calls',
    title: 'Calls',
    filters: ['status', 'to', 'from', 'dates'],
    columns: ['Call', 'Created', 'From', 'To', 'Status', 'Duration (s)'],
    load: (s, account, filters, page) =>
      rows(s.logs.calls(account, filters, page), (c) => ({
        sid: c.sid,
        cells: [c.date_created, c.from, c.to, c.status, c.duration === null ? '' : String(c.duration)],
      })),
  },
  {
    kind: 'verifications',
    nav: 'verifications',
    title: 'Verifications',
    filters: ['status', 'to', 'dates'],
    columns: ['Verification', 'Created', 'To', 'Channel', 'Status'],
    load: (s, account, filters, page) =>
      rows(s.logs.verifications(account, filters, page), (v) => ({
        sid: v.sid,
        cells: [v.date_created, v.to, v.channel, v.status],
      })),
  },
  {
    kind: 'proxySessions',
    nav: 'proxy-sessions',
    title: 'Proxy sessions',
    filters: ['status'],
    columns: ['Session', 'Created', 'Name', 'Mode', 'Status', 'Ended'],
    load: (s, account, filters, page) =>
      rows(s.logs.proxySessions(account, filters, page), (p) => ({
        sid: p.sid,
        cells: [p.date_created, p.unique_name ?? '', p.mode, p.status, p.date_ended ?? ''],
      })),
  },
];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A query parameter as one trimmed string ('' when absent or repeated). */
function param(req: Request, name: string): string {
  const value = req.query[name];
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

/** The day `value` (YYYY-MM-DD) at 00:00 UTC, `days` later; undefined when it is not a day that exists. */
function dayStart(value: string, days = 0): string | undefined {
  if (!DAY.test(value)) return undefined;
  const at = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== value) return undefined;
  return new Date(at + days * 86_400_000).toISOString();
}

function listPage(ctx: DashboardContext, list: LogList) {
  return async (req: Request, res: Response) => {
    const account = sessionOf(res).account.sid;
    const form = {
      status: param(req, 'status'),
      to: param(req, 'to'),
      from: param(req, 'from'),
      created_from: param(req, 'created_from'),
      created_to: param(req, 'created_to'),
    };
    const errors: string[] = [];
    const filters: LogFilters = { status: form.status || undefined, to: form.to || undefined };
    if (list.filters.includes('from')) filters.from = form.from || undefined;
    if (form.created_from) {
      filters.createdAfter = dayStart(form.created_from);
      if (!filters.createdAfter) errors.push('"Created from" must be a date (YYYY-MM-DD).');
    }
    if (form.created_to) {
      filters.createdBefore = dayStart(form.created_to, 1);
      if (!filters.createdBefore) errors.push('"Created to" must be a date (YYYY-MM-DD).');
    }
    const page: LogPage = { page_size: 50 };
    if (param(req, 'before')) page.before = param(req, 'before');
    else if (param(req, 'after')) page.page_token = param(req, 'after');
    let result: TwoWayPage<Row> = { data: [], next_page_token: null, previous_page_token: null };
    if (!errors.length) {
      try {
        result = await list.load(ctx.services, account, filters, page);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 400) throw err;
        errors.push(err.message);
      }
    }
    const query = (extra: Record<string, string>) => {
      const kept = Object.entries(form).filter(([, v]) => v);
      return `?${new URLSearchParams([...kept, ...Object.entries(extra)]).toString()}`;
    };
    render(
      res,
      'logs/list',
      {
        title: list.title,
        nav: list.nav,
        base: `/dashboard/logs/${list.nav}`,
        filters: list.filters,
        statuses: statusesOf(list.kind),
        form,
        errors,
        columns: list.columns,
        rows: result.data,
        next: result.next_page_token ? query({ after: result.next_page_token }) : null,
        previous: result.previous_page_token ? query({ before: result.previous_page_token }) : null,
      },
      errors.length ? 400 : 200,
    );
  };
}

/** A label and a value for the record's summary. */
type Field = [string, string | number | null | undefined];

interface Detail {
  title: string;
  fields: Field[];
  timeline: { status: string; at: string }[];
  deliveries: DeliveryEvent[];
  recordings?: { sid: string; status: string; duration: number | null; date_created: string }[];
  interactions?: { sid: string; type: string; status: string; data: string | null; date_created: string }[];
}

async function messageDetail(s: Services, account: string, sid: string): Promise<Detail> {
  const m = await s.messages.getMessage(account, sid);
  const deliveries = await s.logs.deliveries(account, [sid]);
  return {
    title: `Message ${sid}`,
    fields: [
      ['From', m.from],
      ['To', m.to],
      ['Body', m.body],
      ['Status', m.status],
      ['Direction', m.direction],
      ['Channel', m.channel],
      ['Segments', m.num_segments],
      ['Price', m.price === null ? null : `${m.price} ${m.price_unit}`],
      ['Error', m.error_code ? `${m.error_code}: ${m.error_message ?? ''}` : null],
      ['Created', m.date_created],
      ['Sent', m.date_sent],
      ['Updated', m.date_updated],
    ],
    timeline: timeline(m, m.direction === 'inbound' ? m.status : 'queued', deliveries),
    deliveries,
  };
}

async function callDetail(s: Services, account: string, sid: string): Promise<Detail> {
  const c = await s.calls.get(account, sid);
  const recordings = (await s.calls.recordings(account, sid, { page_size: 100 })).data;
  const deliveries = await s.logs.deliveries(account, [sid, ...recordings.map((r) => r.sid)]);
  const own = deliveries.filter((d) => d.resource_sid === sid);
  return {
    title: `Call ${sid}`,
    fields: [
      ['From', c.from],
      ['To', c.to],
      ['Status', c.status],
      ['Direction', c.direction],
      ['Duration (s)', c.duration],
      ['Price', c.price === null ? null : `${c.price} ${c.price_unit}`],
      ['Created', c.date_created],
      ['Started', c.start_time],
      ['Ended', c.end_time],
    ],
    timeline: timeline(c, 'queued', own),
    deliveries,
    recordings: recordings.map((r) => ({
      sid: r.sid,
      status: r.status,
      duration: r.duration,
      date_created: r.date_created,
    })),
  };
}

async function verificationDetail(s: Services, account: string, sid: string): Promise<Detail> {
  // The API's view: it never holds the code (nor its hash); only the Sandbox page shows a delivered code.
  const v = await s.verify.get(account, sid);
  const deliveries = await s.logs.deliveries(account, [sid]);
  return {
    title: `Verification ${sid}`,
    fields: [
      ['To', v.to],
      ['Channel', v.channel],
      ['Status', v.status],
      ['Locale', v.locale],
      ['Code length', v.code_length],
      ['Expires', v.date_expires],
      ['Sends', v.send_code_attempts.map((a) => `${a.time} (${a.channel})`).join(', ')],
      ['Created', v.date_created],
      ['Updated', v.date_updated],
    ],
    timeline: timeline(v, 'pending', deliveries),
    deliveries,
  };
}

async function proxySessionDetail(s: Services, account: string, sid: string): Promise<Detail> {
  const p = await s.proxy.get(account, sid);
  const interactions = (await s.proxy.interactions(account, sid, { page_size: 100 })).data;
  const deliveries = await s.logs.deliveries(account, [sid]);
  return {
    title: `Proxy session ${sid}`,
    fields: [
      ['Name', p.unique_name],
      ['Mode', p.mode],
      ['Status', p.status],
      ['Participants', p.participants.map((x) => `${x.identifier} via ${x.proxy_identifier}`).join('; ')],
      ['Closed reason', p.closed_reason],
      ['Expires', p.date_expiry],
      ['Created', p.date_created],
      ['Ended', p.date_ended],
    ],
    timeline: timeline({ ...p, status: p.status }, 'open', []),
    deliveries,
    interactions: interactions.map((i) => ({
      sid: i.sid,
      type: i.type,
      status: i.status,
      data: i.body,
      date_created: i.date_created,
    })),
  };
}

const DETAILS: Record<Nav, (s: Services, account: string, sid: string) => Promise<Detail>> = {
  messages: messageDetail,
  calls: callDetail,
  verifications: verificationDetail,
  'proxy-sessions': proxySessionDetail,
};

export function mountLogs(router: Router, ctx: DashboardContext): void {
  for (const list of LISTS) {
    router.get(`/logs/${list.nav}`, listPage(ctx, list));
    const detail = DETAILS[list.nav];
    router.get(`/logs/${list.nav}/:sid`, async (req, res) => {
      const account = sessionOf(res).account.sid;
      const record = await detail(ctx.services, account, String(req.params.sid));
      render(res, 'logs/detail', {
        ...record,
        nav: list.nav,
        back: `/dashboard/logs/${list.nav}`,
        listTitle: list.title,
        retryAction: `/dashboard/logs/${list.nav}/${encodeURIComponent(String(req.params.sid))}/retry`,
      });
    });
    router.post(`/logs/${list.nav}/:sid/retry`, async (req, res) => {
      const account = sessionOf(res).account.sid;
      const sid = String(req.params.sid);
      // The record must be the account's (another's answers the not-found page), and the event given up.
      await detail(ctx.services, account, sid);
      const eventId = typeof req.body.event_id === 'string' ? req.body.event_id : '';
      const retried = await ctx.services.logs.retryNow(account, eventId);
      const back = `/dashboard/logs/${list.nav}/${encodeURIComponent(sid)}`;
      await flashAndRedirect(
        ctx,
        res,
        back,
        retried ? 'Retrying now: one more attempt is on its way.' : 'That webhook was not given up; nothing to retry.',
      );
    });
  }
  // A call's recording, for the <audio> element of its page: the session's account only.
  router.get('/logs/recordings/:sid/media', async (req, res) => {
    const audio = await ctx.services.calls.media(sessionOf(res).account.sid, String(req.params.sid));
    res.type('audio/wav').send(audio);
  });
}
