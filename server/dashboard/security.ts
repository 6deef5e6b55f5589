// What every dashboard response carries (a strict CSP and its companions), the session cookie, and the CSRF check.
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { badRequestPage } from './context.js';

export const SESSION_COOKIE = 'dashboard_session';
/** Before sign-in there is no session: the sign-in form is guarded by this cookie echoed in a hidden field. */
export const SIGN_IN_COOKIE = 'dashboard_sign_in';
/** The hidden field of every state-changing form. */
export const CSRF_FIELD = '_csrf';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** No inline script or style may run, nothing may frame a page, and no page is stored by a cache. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  });
  next();
}

/**
 * Refuses (400) a request whose path or query holds a NUL, before any page reads it: the JSON API's patterns refuse it
 * for /v1, and the dashboard's sids and filters would otherwise reach PostgreSQL, whose text cannot hold one (the
 * query failed: a 500). Form fields are the pages' to check, against the spec's schemas, beside each field.
 */
export function refuseNul(req: Request, res: Response, next: NextFunction): void {
  if (/%00/i.test(req.originalUrl)) return badRequestPage(res);
  next();
}

/** The request's cookies by name (the first of each name). */
export function cookies(req: Request): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!found.has(name)) found.set(name, safeDecode(part.slice(eq + 1).trim()));
  }
  return found;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Whether cookies get `Secure`: when the request came over https (req.secure, which honours Express's
 * `trust proxy` when set), or when PUBLIC_URL says clients reach this server by https (a TLS proxy in front).
 */
export function secureCookies(req: Request, publicUrl: string | null): boolean {
  return req.secure || Boolean(publicUrl?.startsWith('https:'));
}

/** A cookie of the dashboard: HttpOnly, SameSite=Strict, Path=/dashboard, Secure behind https; a session cookie. */
export function setCookie(res: Response, name: string, value: string, secure: boolean): void {
  res.cookie(name, value, { httpOnly: true, sameSite: 'strict', path: '/dashboard', secure });
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  res.clearCookie(name, { httpOnly: true, sameSite: 'strict', path: '/dashboard', secure });
}

/** Constant-time comparison of a submitted token with the expected one. */
export function tokensMatch(submitted: unknown, expected: string): boolean {
  if (typeof submitted !== 'string' || !expected) return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
