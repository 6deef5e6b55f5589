// Steps the dashboard's browser tests share: filling the address form, reading a page's CSRF token.
import type { Page } from 'playwright-core';

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
