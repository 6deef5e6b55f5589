// Settings > Addresses: the account's addresses with their verification status, a form to submit one (each
// field's problem shown beside it), and deletion behind a confirmation page.
import type { Request, Response, Router } from 'express';
import { ApiError } from '../../errors.js';
import { addressFormProblems, type CreateAddressInput } from '../../addresses/service.js';
import { render } from '../render.js';
import { type DashboardContext, flashAndRedirect, sessionOf } from '../context.js';
import { byField, field } from '../forms.js';
import { schemaProblems } from '../schema-fields.js';

const PAGE = '/dashboard/settings/addresses';
const FIELDS = ['friendly_name', 'customer_name', 'street', 'city', 'region', 'postal_code', 'iso_country'] as const;

export function mountAddresses(router: Router, ctx: DashboardContext): void {
  const { addresses } = ctx.services;

  const list = async (req: Request, res: Response, form: Record<string, string>, errors = {}, status = 200) => {
    const pageToken = typeof req.query.page_token === 'string' ? req.query.page_token : undefined;
    const page = await addresses.list(sessionOf(res).account.sid, { page_size: 50, page_token: pageToken });
    render(res, 'addresses/list', { title: 'Addresses', nav: 'addresses', page, form, errors }, status);
  };

  router.get('/settings/addresses', (req, res) => list(req, res, {}));

  router.post('/settings/addresses', async (req, res) => {
    const form = Object.fromEntries(FIELDS.map((name) => [name, field(req, name)]));
    const input: CreateAddressInput = {
      customer_name: form.customer_name,
      street: form.street,
      city: form.city,
      region: form.region,
      postal_code: form.postal_code,
      iso_country: form.iso_country.trim(),
      ...(form.friendly_name.trim() ? { friendly_name: form.friendly_name.trim() } : {}),
    };
    const problems = [...schemaProblems('CreateAddressRequest', input), ...addressFormProblems(input)];
    if (problems.length) return list(req, res, form, byField(problems), 422);
    const created = await addresses.create(sessionOf(res).account.sid, input);
    await flashAndRedirect(ctx, res, PAGE, `Address ${created.sid} submitted: it is pending verification.`);
  });

  router.get('/settings/addresses/:sid/delete', async (req, res) => {
    const address = await addresses.get(sessionOf(res).account.sid, req.params.sid);
    render(res, 'addresses/delete', { title: 'Delete address', nav: 'addresses', address });
  });

  router.post('/settings/addresses/:sid/delete', async (req, res) => {
    const { sid } = req.params;
    try {
      await addresses.delete(sessionOf(res).account.sid, sid);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'address_in_use') {
        return flashAndRedirect(ctx, res, PAGE, `Address ${sid} is used by a number: release the number first.`);
      }
      throw err;
    }
    await flashAndRedirect(ctx, res, PAGE, `Address ${sid} deleted.`);
  });
}
