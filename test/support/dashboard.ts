// Steps the dashboard's tests share: filling the address form, reading a page's CSRF token, a sign-in over plain HTTP.
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Fills the address form of the page and submits it. */
export async function fillAddress(page: Page, fields: Record<string, string>): Promise<void> {
  const labels: Record<string, string> = {
    customer_name: 'Customer name',
    street: 'Street',
    city: 'City',
    region: 'Region (state or province)',
    postal_code: 'Postal code',
    iso_country: 'Country',
  };
  for (const [name, value] of Object.entries(fields)) await page.getByLabel(labels[name], { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Submit address' }).click();
  await page.waitForLoadState();
}

export const BERLIN = {
  customer_name: 'Example GmbH',
  street: 'Friedrichstraße 123',
  city: 'Berlin',
  region: 'Berlin',
  postal_code: '10117',
  iso_country: 'DE',
};

/** The CSRF token of the page's forms (the sign-out form of the layout has one on every page). */
export async function csrfOf(page: Page): Promise<string> {
  return (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!;
}

/** The Set-Cookie of the session after a sign-in with `apiKey`, by plain HTTP (GET the form, POST it). */
export async function signInCookie(baseUrl: string, apiKey: string, headers: Record<string, string> = {}) {
  const form = await fetch(`${baseUrl}/dashboard/sign-in`, { headers });
  const preCookie = form.headers.getSetCookie()[0].split(';')[0];
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const res = await fetch(`${baseUrl}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, cookie: preCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, api_key: apiKey }),
  });
  expect(res.status).toBe(303);
  return res.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))!;
}
