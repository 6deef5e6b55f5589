// Numbers: the account's numbers; a search of the inventory and provisioning from its results (a country's address
// requirement shown inline, with the way to Settings > Addresses); a number's configuration; release, confirmed.
import type { Request, Response, Router } from 'express';
import { ApiError } from '../../errors.js';
import type { UpdateInput } from '../../numbers/service.js';
import type { SearchFilters } from '../../numbers/inventory.js';
import { render } from '../render.js';
import { type DashboardContext, flashAndRedirect, sessionOf } from '../context.js';
import { byField, field } from '../forms.js';
import { schemaProblems } from '../schema-fields.js';

/** The search form's fields, checked as the API checks its query (the same patterns). */
const SEARCH_RULES: Record<'country' | 'area_code' | 'contains', [RegExp, string]> = {
  country: [/^[A-Za-z]{2}$/, 'must be a two-letter country code, e.g. DE'],
  area_code: [/^[0-9]{1,5}$/, 'must be 1 to 5 digits'],
  contains: [/^[0-9*]{1,16}$/, 'must be 1 to 16 digits or * (any one digit)'],
};
const SEARCH_RESULTS = 20;
/** Problems of provisioning that a person can act on; shown on the page rather than as an error page. */
const PROVISION_PROBLEMS = new Set([
  'regulatory_requirements',
  'address_pending',
  'number_unavailable',
  'number_quota_exceeded',
  'invalid_request',
]);

const query = (req: Request, name: string) => (typeof req.query[name] === 'string' ? req.query[name] : '');

export function mountNumbers(router: Router, ctx: DashboardContext): void {
  const { numbers } = ctx.services;

  router.get('/numbers', async (req, res) => {
    const pageToken = query(req, 'page_token') || undefined;
    const page = await numbers.list(sessionOf(res).account.sid, {}, { page_size: 50, page_token: pageToken });
    render(res, 'numbers/list', { title: 'Numbers', nav: 'numbers', page });
  });

  router.get('/numbers/available', async (req, res) => {
    const search = {
      country: query(req, 'country').trim(),
      type: query(req, 'type') === 'TollFree' ? 'TollFree' : 'Local',
      area_code: query(req, 'area_code').trim(),
      contains: query(req, 'contains').trim(),
      sms: query(req, 'sms') === 'on',
      mms: query(req, 'mms') === 'on',
      voice: query(req, 'voice') === 'on',
    } as const;
    const errors: Record<string, string> = {};
    for (const [name, [pattern, message]] of Object.entries(SEARCH_RULES)) {
      const value = search[name as keyof typeof SEARCH_RULES];
      if ((value || name === 'country') && !pattern.test(value)) errors[name] = message;
    }
    let results = null;
    let problem: string | null = null;
    if (!Object.keys(errors).length) {
      const filters: SearchFilters = {
        areaCode: search.area_code || undefined,
        contains: search.contains || undefined,
        smsEnabled: search.sms || undefined,
        mmsEnabled: search.mms || undefined,
        voiceEnabled: search.voice || undefined,
      };
      try {
        results = await numbers.search(search.country, search.type, filters, SEARCH_RESULTS);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        problem = err.detail;
      }
    }
    const status = Object.keys(errors).length ? 422 : 200;
    render(res, 'numbers/search', { title: 'Find a number', nav: 'numbers', search, errors, results, problem }, status);
  });

  router.post('/numbers/provision', async (req, res) => {
    const phoneNumber = field(req, 'PhoneNumber').trim();
    try {
      const number = await numbers.provision(sessionOf(res).account.sid, { PhoneNumber: phoneNumber });
      await flashAndRedirect(ctx, res, `/dashboard/numbers/${number.sid}`, `${number.phone_number} is yours.`);
    } catch (err) {
      if (!(err instanceof ApiError) || !PROVISION_PROBLEMS.has(err.code)) throw err;
      const data = { title: 'Number not provisioned', nav: 'numbers', phoneNumber, problem: err } as const;
      render(res, 'numbers/provision-problem', data, err.status);
    }
  });

  const configure = (res: Response, number: unknown, form: Record<string, string>, errors = {}, status = 200) =>
    render(res, 'numbers/number', { title: 'Number', nav: 'numbers', number, form, errors }, status);

  router.get('/numbers/:sid', async (req, res) => {
    const number = await numbers.get(sessionOf(res).account.sid, req.params.sid);
    const form = {
      FriendlyName: number.friendly_name,
      SmsUrl: number.sms_url ?? '',
      VoiceUrl: number.voice_url ?? '',
    };
    configure(res, number, form);
  });

  router.post('/numbers/:sid', async (req, res) => {
    const account = sessionOf(res).account.sid;
    const number = await numbers.get(account, req.params.sid);
    const form = {
      FriendlyName: field(req, 'FriendlyName'),
      SmsUrl: field(req, 'SmsUrl'),
      VoiceUrl: field(req, 'VoiceUrl'),
    };
    // An empty URL clears it, as in the API; an empty name keeps the current one.
    const input: UpdateInput = {
      ...(form.FriendlyName.trim() ? { FriendlyName: form.FriendlyName.trim() } : {}),
      SmsUrl: form.SmsUrl.trim(),
      VoiceUrl: form.VoiceUrl.trim(),
    };
    const problems = schemaProblems('UpdateIncomingPhoneNumberRequest', input);
    if (problems.length) return configure(res, number, form, byField(problems), 422);
    try {
      await numbers.update(account, number.sid, input);
    } catch (err) {
      if (!(err instanceof ApiError) || !err.fieldErrors?.length) throw err;
      return configure(res, number, form, byField(err.fieldErrors), err.status);
    }
    await flashAndRedirect(ctx, res, `/dashboard/numbers/${number.sid}`, 'Configuration saved.');
  });

  router.get('/numbers/:sid/release', async (req, res) => {
    const number = await numbers.get(sessionOf(res).account.sid, req.params.sid);
    render(res, 'numbers/release', { title: 'Release number', nav: 'numbers', number });
  });

  router.post('/numbers/:sid/release', async (req, res) => {
    const account = sessionOf(res).account.sid;
    const number = await numbers.get(account, req.params.sid);
    await numbers.release(account, number.sid);
    await flashAndRedirect(ctx, res, '/dashboard/numbers', `${number.phone_number} was released.`);
  });
}
