// Sandbox (only while the sandbox carrier runs; otherwise the not-found page): inject an inbound message or call
// from an outside number to a number of the account, and read the last verification code the sandbox delivered to
// a number — the one page where a code appears. The same services as the /v1/sandbox routes.
import type { Request, Response, Router } from 'express';
import { render } from '../render.js';
import { type DashboardContext, notFoundPage, sessionOf } from '../context.js';
import { ApiError } from '../../errors.js';
import { longerThan } from '../../messages/segments.js';

const E164 = /^\+[1-9]\d{6,14}$/;
const MAX_BODY = 1600;

const field = (req: Request, name: string) => (typeof req.body?.[name] === 'string' ? req.body[name].trim() : '');

export function mountSandbox(router: Router, ctx: DashboardContext): void {
  const { services } = ctx;
  const active = () => services.config.carrier === 'sandbox';

  const show = async (req: Request, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const account = sessionOf(res).account.sid;
    const numbers = (await services.numbers.list(account, {}, { page_size: 100 })).data.map((n) => n.phone_number);
    const lookup = typeof req.query.number === 'string' ? req.query.number.trim() : '';
    let code: { to: string; code: string; channel: string; date_sent: string } | null = null;
    let codeError: string | null = null;
    if (lookup) {
      if (!E164.test(lookup)) codeError = 'The number must be in E.164 form, such as +14155550123.';
      else {
        try {
          code = await services.verify.sandboxCode(account, lookup);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          codeError = `No verification code was delivered to ${lookup} for your account.`;
        }
      }
    }
    const data = { title: 'Sandbox', nav: 'sandbox' as const, numbers, lookup, code, codeError, errors: {}, form: {} };
    render(res, 'sandbox', { ...data, ...extra }, status);
  };

  /** Runs an injection; a refusal (bad number, not the account's) is shown on the page with what was typed. */
  const inject = (kind: 'message' | 'call') => async (req: Request, res: Response) => {
    if (!active()) return notFoundPage(res);
    const account = sessionOf(res).account.sid;
    const form = { from: field(req, 'from'), to: field(req, 'to'), body: field(req, 'body') };
    const errors: Record<string, string> = {};
    if (!E164.test(form.from)) errors.from = 'Give the outside number in E.164 form, such as +14155550123.';
    if (!E164.test(form.to)) errors.to = 'Choose one of your numbers.';
    if (kind === 'message' && !form.body) errors.body = 'Write the message.';
    if (longerThan(form.body, MAX_BODY)) errors.body = `At most ${MAX_BODY} characters.`;
    if (Object.keys(errors).length === 0) {
      try {
        if (kind === 'message') {
          const message = await services.messages.injectInbound(account, form);
          return res.redirect(303, `/dashboard/logs/messages/${encodeURIComponent(message.sid)}`);
        }
        const call = await services.calls.injectInbound(account, { from: form.from, to: form.to });
        return res.redirect(303, `/dashboard/logs/calls/${encodeURIComponent(call.sid)}`);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        const about = err.fieldErrors?.[0];
        if (about?.field === 'body') errors.body = `It ${about.message}.`;
        else errors.to = err.message;
      }
    }
    await show(req, res, { errors: { [kind]: errors }, form: { [kind]: form } }, 400);
  };

  router.get('/sandbox', async (req, res) => (active() ? show(req, res) : notFoundPage(res)));
  router.post('/sandbox/inbound-message', inject('message'));
  router.post('/sandbox/inbound-call', inject('call'));
}
