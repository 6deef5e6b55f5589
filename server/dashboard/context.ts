// What every dashboard page module is given, and the small helpers pages share (the session, notices, error pages).
import type { Response } from 'express';
import type { Services } from '../services.js';
import type { DashboardSessions, DashboardSession } from './sessions.js';
import { render, type DashboardLocals } from './render.js';

export interface DashboardContext {
  services: Services;
  sessions: DashboardSessions;
}

/** The signed-in session of a page behind sign-in (every page but sign-in has one). */
export function sessionOf(res: Response): DashboardSession {
  const session = (res.locals as DashboardLocals).session;
  if (!session) throw new Error('dashboard: no session on a page behind sign-in');
  return session;
}

/** Redirect-after-post, leaving a notice the next page shows once. */
export async function flashAndRedirect(ctx: DashboardContext, res: Response, to: string, message: string) {
  await ctx.sessions.flash(sessionOf(res), message);
  res.redirect(303, to);
}

/** The one "not found" page: an unknown sid and another account's sid answer it alike. */
export function notFoundPage(res: Response): void {
  render(res, 'error', { title: 'Not found', nav: 'none', message: 'There is no such page in your account.' }, 404);
}

/** The page of a request that could not be read (a body over its limit, a value no page takes). */
export function badRequestPage(res: Response, status = 400): void {
  render(res, 'error', { title: 'Bad request', nav: 'none', message: 'The request could not be read.' }, status);
}

export function forbiddenPage(res: Response): void {
  const message = 'The form was stale or did not come from this dashboard. Go back, reload the page and try again.';
  render(res, 'error', { title: 'Forbidden', nav: 'none', message }, 403);
}
