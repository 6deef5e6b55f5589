// Numbers in a real browser: search and provision a German number, the regulatory remedy end to end (the problem
// with its link, the address submitted there, address_pending meanwhile, then the number), configuration with the
// URL policy's error beside its field, release behind a confirmation, names shown as text, other accounts' 404.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ENGINES, useTestServer } from '../support/server.js';
import { TestClock } from '../support/clock.js';
import { expectAccessible, screenshot, signIn, useBrowser } from '../support/browser.js';
import { BERLIN, csrfOf, fillAddress } from '../support/dashboard.js';
import { availableNumber, settledAddress } from '../numbers/fixtures.js';
import { waitUntil } from '../support/wait.js';
import type { TelephonyClient } from '../../client/index.js';

// Addresses settle an hour after submission on the TestClock; sessions outlast the jump.
const HOUR = 3_600_000;

/** Searches the inventory from the Numbers page (Local numbers in `country` containing `contains`). */
async function searchFor(page: Page, baseUrl: string, country: string, contains: string) {
  await page.goto(`${baseUrl}/dashboard/numbers`);
  await page.getByLabel('Country').fill(country);
  await page.getByLabel('Contains').fill(contains);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForLoadState();
}

async function provisioned(client: TelephonyClient, country = 'US') {
  const PhoneNumber = await availableNumber(client, country);
  const { data, response } = await client.POST('/v1/incoming-phone-numbers', { body: { PhoneNumber } });
  expect(response.status).toBe(201);
  return data!;
}

describe.each(ENGINES)('dashboard: Numbers (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, env: { ADDRESS_VERIFICATION_DELAY: '1h', DASHBOARD_IDLE_MINUTES: '600' }, clock });
  const browser = useBrowser();

  it('provisions a German number from the Numbers page once the account has a verified address', async () => {
    await settledAddress(clock, t.account.client, 'DE');
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.getByRole('navigation').getByRole('link', { name: 'Numbers' }).click();
    await expectAccessible(page);
    await screenshot(page, 'numbers-empty');
    await searchFor(page, t.url, 'DE', '49');
    const first = page.locator('tbody tr').first();
    const phoneNumber = (await first.locator('input[name="PhoneNumber"]').getAttribute('value'))!;
    expect(phoneNumber).toMatch(/^\+49\d+$/);
    expect(await first.textContent()).toContain('yes, in DE');
    await expectAccessible(page);
    await screenshot(page, 'numbers-search');
    await first.getByRole('button', { name: /Provision/ }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toContain(`${phoneNumber} is yours.`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(phoneNumber);
    const { data } = await t.account.client.GET('/v1/incoming-phone-numbers', {});
    expect(data!.data.map((n) => n.phone_number)).toEqual([phoneNumber]);
    await page.getByRole('navigation').getByRole('link', { name: 'Numbers' }).click();
    expect(await page.locator('tbody').textContent()).toContain(phoneNumber);
    await expectAccessible(page);
    await screenshot(page, 'numbers-list');
  });

  it('walks the regulatory remedy: problem, link to Settings > Addresses, address submitted, provisioned', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await searchFor(page, t.url, 'DE', '49');
    const phoneNumber = (await page.locator('input[name="PhoneNumber"]').first().getAttribute('value'))!;
    await page
      .locator('tbody tr')
      .first()
      .getByRole('button', { name: /Provision/ })
      .click();
    await page.waitForLoadState();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Number not provisioned');
    const detail = (await page.locator('#problem-detail').textContent())!;
    expect(detail).toContain('require a verified address of your account in DE');
    expect(detail).toContain(`${t.directUrl}/dashboard/settings/addresses`);
    await expectAccessible(page);
    await screenshot(page, 'numbers-regulatory');

    await page.getByRole('link', { name: 'Settings > Addresses' }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/addresses');
    await fillAddress(page, BERLIN);
    expect(await page.getByRole('status').textContent()).toContain('pending verification');

    // While the address is pending, provisioning says so (its own code), not that there is none.
    await searchFor(page, t.url, 'DE', phoneNumber.slice(1));
    await page
      .locator('tbody tr')
      .first()
      .getByRole('button', { name: /Provision/ })
      .click();
    await page.waitForLoadState();
    expect(await page.locator('.problem').textContent()).toContain('Address pending verification');
    expect(await page.locator('#problem-detail').textContent()).toContain('still pending verification');
    await screenshot(page, 'numbers-address-pending');

    clock.advance(HOUR);
    const [address] = (await t.account.client.GET('/v1/addresses', {})).data!.data;
    await waitUntil(async () => {
      const { data } = await t.account.client.GET('/v1/addresses/{sid}', { params: { path: { sid: address.sid } } });
      return data?.status === 'verified';
    });
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toContain(`${phoneNumber} is yours.`);
    const { data } = await t.account.client.GET('/v1/incoming-phone-numbers', {});
    expect(data!.data).toMatchObject([{ phone_number: phoneNumber, address_sid: address.sid }]);
  });

  it('shows a bad search field beside it', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const res = await page.goto(`${t.url}/dashboard/numbers/available?country=US&type=Local&area_code=41x`);
    expect(res!.status()).toBe(422);
    expect(await page.locator('#f-area_code-error').textContent()).toBe('must be 1 to 5 digits');
  });

  it("configures a number: the URL policy's refusal beside its field, then saved", async () => {
    const number = await provisioned(t.account.client);
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.goto(`${t.url}/dashboard/numbers/${number.sid}`);
    await page.getByLabel('Friendly name').fill('Support line');
    await page.getByLabel('SMS webhook URL').fill('http://10.1.2.3/sms');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#f-SmsUrl-error').textContent()).toMatch(/private|not allowed|reserved/i);
    expect(await page.getByLabel('SMS webhook URL').inputValue()).toBe('http://10.1.2.3/sms');
    await expectAccessible(page);
    await screenshot(page, 'number-invalid-url');
    const unchanged = await t.account.client.GET('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: number.sid } },
    });
    expect(unchanged.data).toMatchObject({ friendly_name: number.friendly_name, sms_url: null });

    await page.getByLabel('SMS webhook URL').fill('http://127.0.0.1:9/sms');
    await page.getByLabel('Voice webhook URL').fill('http://127.0.0.1:9/voice');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toContain('Configuration saved.');
    const saved = await t.account.client.GET('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid: number.sid } },
    });
    expect(saved.data).toMatchObject({
      friendly_name: 'Support line',
      sms_url: 'http://127.0.0.1:9/sms',
      voice_url: 'http://127.0.0.1:9/voice',
    });
    await screenshot(page, 'number');
  });

  it('renders a FriendlyName of markup as text: nothing runs', async () => {
    const names = ['<script>window.__x=1</script>', '"><img src=x onerror="window.__x=2">'];
    const page = await browser.newPage({ javaScript: true });
    await signIn(page, t.url, t.account.apiKey);
    for (const name of names) {
      const number = await provisioned(t.account.client);
      await page.goto(`${t.url}/dashboard/numbers/${number.sid}`);
      await page.getByLabel('Friendly name').fill(name);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForLoadState();
      expect(await page.getByLabel('Friendly name').inputValue()).toBe(name);
      await page.goto(`${t.url}/dashboard/numbers`);
      expect(await page.locator('tbody').textContent()).toContain(name);
      expect(await page.locator('tbody script, tbody img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as any).__x)).toBeUndefined();
    }
    await screenshot(page, 'numbers-markup-names');
  });

  it('releases a number after a confirmation page', async () => {
    const number = await provisioned(t.account.client);
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.goto(`${t.url}/dashboard/numbers/${number.sid}`);
    await page.getByRole('link', { name: /Release this number/ }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/numbers/${number.sid}/release`);
    expect((await t.account.client.GET('/v1/incoming-phone-numbers', {})).data!.data).toHaveLength(1);
    await expectAccessible(page);
    await screenshot(page, 'number-release');
    await page.getByRole('button', { name: `Release ${number.phone_number}` }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toContain(`${number.phone_number} was released.`);
    expect((await t.account.client.GET('/v1/incoming-phone-numbers', {})).data!.data).toEqual([]);
  });

  it("answers another account's number sid with the 404 page, and changes nothing of it", async () => {
    const other = await t.newAccount('other');
    const theirs = await provisioned(other.client);
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const unknown = await page.goto(`${t.url}/dashboard/numbers/PN${'0'.repeat(32)}`);
    const unknownPage = await page.content();
    expect(unknown!.status()).toBe(404);
    for (const path of [`/dashboard/numbers/${theirs.sid}`, `/dashboard/numbers/${theirs.sid}/release`]) {
      const res = await page.goto(`${t.url}${path}`);
      expect(res!.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
      expect(await page.content()).toBe(unknownPage);
    }
    const csrf = await csrfOf(page);
    for (const path of [`/dashboard/numbers/${theirs.sid}`, `/dashboard/numbers/${theirs.sid}/release`]) {
      const res = await page.request.post(`${t.url}${path}`, { form: { _csrf: csrf, FriendlyName: 'mine now' } });
      expect(res.status()).toBe(404);
    }
    const still = await other.client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: theirs.sid } } });
    expect(still.data).toMatchObject({ sid: theirs.sid, friendly_name: theirs.friendly_name });
  });
});
