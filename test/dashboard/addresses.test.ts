// Settings > Addresses in a real browser (JavaScript off): submit with a bad postal code (its message beside the
// field, nothing stored), then a good one, verified after the delay; rejected ones with their reason; deletion
// behind a confirmation page.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { TestClock } from '../support/clock.js';
import { expectAccessible, screenshot, signIn, useBrowser } from '../support/browser.js';
import { settledAddress, submitAddress } from '../numbers/fixtures.js';
import { waitUntil } from '../support/wait.js';
import { BERLIN, csrfOf, fillAddress } from '../support/dashboard.js';

// Addresses settle an hour after submission on the TestClock; sessions outlast the jump.
const HOUR = 3_600_000;

describe.each(ENGINES)('dashboard: Settings > Addresses (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: { ADDRESS_VERIFICATION_DELAY: '1h', DASHBOARD_IDLE_MINUTES: '600' }, clock });
  const browser = useBrowser();

  it('shows a bad postal code beside its field and stores nothing, then a good one, verified later', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.getByRole('navigation').getByRole('link', { name: 'Addresses' }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/addresses');
    await expectAccessible(page);
    await screenshot(page, 'addresses-empty');

    await fillAddress(page, { ...BERLIN, postal_code: '1011' });
    const postal = page.getByLabel('Postal code', { exact: true });
    expect(await postal.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await postal.getAttribute('aria-describedby'))!;
    expect(await page.locator(`#${describedBy}`).textContent()).toContain('does not have the format used in DE');
    // The message sits in the postal code's own field, and the values typed are kept.
    expect(await page.locator('.field', { has: postal }).locator('.error').textContent()).toContain('5 digits');
    expect(await page.getByLabel('City', { exact: true }).inputValue()).toBe('Berlin');
    expect(await page.locator('.error').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'addresses-invalid');
    expect((await t.account.client.GET('/v1/addresses', {})).data!.data).toEqual([]);

    await postal.fill('10117');
    await page.getByRole('button', { name: 'Submit address' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toContain('pending verification');
    const [stored] = (await t.account.client.GET('/v1/addresses', {})).data!.data;
    expect(stored).toMatchObject({ postal_code: '10117', iso_country: 'DE', status: 'pending' });
    expect(await page.locator(`#${stored.sid}`).textContent()).toContain('pending');

    clock.advance(HOUR);
    await waitUntil(
      async () => {
        await page.reload();
        return (await page.locator(`#${stored.sid} .status-verified`).count()) === 1;
      },
      15_000,
      'the address to show verified',
    );
    await expectAccessible(page);
    await screenshot(page, 'addresses-verified');
  });

  it('shows each blank required field and a bad country beside its field', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.goto(`${t.url}/dashboard/settings/addresses`);
    await fillAddress(page, { ...BERLIN, street: '  ', iso_country: 'XX' });
    expect(await page.locator('#f-street-error').textContent()).toBe('must not be blank');
    expect(await page.locator('#f-iso_country-error').textContent()).toContain('ISO 3166-1 alpha-2');
    expect((await t.account.client.GET('/v1/addresses', {})).data!.data).toEqual([]);
  });

  it('lists a rejected address with the reason', async () => {
    const rejected = await settledAddress(clock, t.account.client, 'AU', { postal_code: 'not-a-postcode' });
    expect(rejected.status).toBe('rejected');
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.goto(`${t.url}/dashboard/settings/addresses`);
    const row = page.locator(`#${rejected.sid}`);
    expect(await row.locator('.status-rejected').textContent()).toBe('rejected');
    expect(await row.locator('.reason').textContent()).toBe(rejected.rejection_reason);
  });

  it('deletes an address after a confirmation page', async () => {
    const address = await submitAddress(t.account.client, 'DE');
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.goto(`${t.url}/dashboard/settings/addresses`);
    await page
      .locator(`#${address.sid}`)
      .getByRole('link', { name: /Delete/ })
      .click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/settings/addresses/${address.sid}/delete`);
    // Nothing is deleted until the confirmation is posted.
    expect(
      (await t.account.client.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } })).response.status,
    ).toBe(200);
    await expectAccessible(page);
    await screenshot(page, 'addresses-delete');
    await page.getByRole('button', { name: 'Delete address' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toContain(`Address ${address.sid} deleted.`);
    const gone = await t.account.client.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } });
    expect(gone.response.status).toBe(404);
  });

  it("answers another account's address with the 404 page", async () => {
    const other = await t.newAccount('other');
    const theirs = await submitAddress(other.client, 'DE');
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const shown = await page.goto(`${t.url}/dashboard/settings/addresses/${theirs.sid}/delete`);
    expect(shown!.status()).toBe(404);
    const csrf = await csrfOf(page);
    const posted = await page.request.post(`${t.url}/dashboard/settings/addresses/${theirs.sid}/delete`, {
      form: { _csrf: csrf },
    });
    expect(posted.status()).toBe(404);
    expect(
      (await other.client.GET('/v1/addresses/{sid}', { params: { path: { sid: theirs.sid } } })).response.status,
    ).toBe(200);
  });
});
