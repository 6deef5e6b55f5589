// How a dashboard page is answered. A page handler calls
//
//   render(res, 'numbers/list', { title: 'Numbers', nav: 'numbers', numbers });
//
// which renders server/dashboard/views/numbers/list.eta inside views/layout.eta. Every view sees, besides its own
// data: `it.title`, `it.nav` (the active navigation item, see NavItem), `it.account` (the signed-in account, or
// undefined on the sign-in page), `it.csrf` (put `<input type="hidden" name="_csrf" value="<%= it.csrf %>">` in every
// POST form), `it.flash` (a notice left with `flashAndRedirect`, shown once by the layout), and `it.sandbox` (whether
// the sandbox carrier runs). Views escape with `<%= %>`; `<%~ %>` is only for HTML a view made itself, never data.
import path from 'node:path';
import { Eta } from 'eta';
import type { Response } from 'express';
import type { DashboardSession } from './sessions.js';

/** The navigation entries: `nav` names the one the page belongs to. */
type NavItem =
  | 'numbers'
  | 'messages'
  | 'calls'
  | 'verifications'
  | 'proxy-sessions'
  | 'addresses'
  | 'api-keys'
  | 'webhook-secret'
  | 'sandbox'
  | 'none';

export interface PageData {
  title: string;
  nav: NavItem;
  [name: string]: unknown;
}

/** What the dashboard's middleware leaves on res.locals for render. */
export interface DashboardLocals {
  session?: DashboardSession;
  sandbox: boolean;
}

const eta = new Eta({ views: path.join(import.meta.dirname, 'views'), cache: true, autoEscape: true });

export function render(res: Response, view: string, data: PageData, status = 200): void {
  const locals = res.locals as DashboardLocals;
  const session = locals.session;
  const html = eta.render(`./${view}`, {
    ...data,
    account: session?.account,
    csrf: session?.csrf ?? '',
    flash: session?.flash ?? null,
    sandbox: locals.sandbox,
  });
  res.status(status).type('html').send(html);
}
