// Settings > API keys in a real browser: a new key shown once (and working), listed by prefix only; revocation
// behind a confirmation, after which the key fails on /v1 and every dashboard session opened with it has ended;
// a form posted without its CSRF token changes nothing.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { expectAccessible, screenshot, signIn, useBrowser } from '../support/browser.js';

describe.each(ENGINES)('dashboard: Settings > API keys (%s)', (engine) => {
  const t = useTestServer({ engine });
  const browser = useBrowser();

  const accountWith = (apiKey: string) =>
    fetch(`${t.url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } }).then((r) => r.status);

  it('creates a key shown once, lists it by prefix, and revokes it after a confirmation', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody').textContent()).toContain('(this session)');
    await expectAccessible(page);
    await screenshot(page, 'api-keys');

    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.waitForLoadState();
    const created = await page.getByLabel(/^Key SK/).inputValue();
    expect(created).toMatch(/^tk_[A-Za-z0-9_-]{43}$/);
    expect(await accountWith(created)).toBe(200);
    await expectAccessible(page);
    await screenshot(page, 'api-key-created');

    await page.getByRole('link', { name: 'Back to API keys' }).click();
    const listed = (await page.locator('tbody').textContent())!;
    expect(listed).toContain(`${created.slice(0, 9)}…`);
    expect(listed).not.toContain(created);
    expect(listed).not.toContain(t.account.apiKey);
    expect(await page.locator('tbody tr').count()).toBe(2);

    const row = page.locator('tbody tr', { hasText: created.slice(0, 9) });
    await row.getByRole('link', { name: /Revoke/ }).click();
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/settings\/api-keys\/SK[0-9a-f]{32}\/revoke$/);
    expect(await accountWith(created)).toBe(200);
    await expectAccessible(page);
    await screenshot(page, 'api-key-revoke');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toMatch(/Key SK[0-9a-f]{32} revoked\./);
    expect(await accountWith(created)).toBe(401);
    expect(await page.locator('tbody tr').count()).toBe(1);
  });

  it('ends every dashboard session of a revoked key, and signs out when it is the own key', async () => {
    const created = (await t.server.services.accounts.createKey(t.account.sid))!;
    const elsewhere = await browser.newPage();
    await signIn(elsewhere, t.url, created.api_key);
    const page = await browser.newPage();
    await signIn(page, t.url, created.api_key);
    await page.goto(`${t.url}/dashboard/settings/api-keys/${created.key_sid}/revoke`);
    expect(await page.locator('main').textContent()).toContain('you will be signed out');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(`${t.url}/dashboard/sign-in`);
    expect(await accountWith(created.api_key)).toBe(401);
    // The other session of that key ends too, on its next request.
    await elsewhere.goto(`${t.url}/dashboard/settings/api-keys`);
    expect(new URL(elsewhere.url()).pathname).toBe('/dashboard/sign-in');
  });

  it('ends the session when its key is revoked outside the dashboard', async () => {
    const created = (await t.server.services.accounts.createKey(t.account.sid))!;
    const page = await browser.newPage();
    await signIn(page, t.url, created.api_key);
    await t.server.services.accounts.revokeKey(created.key_sid);
    await page.goto(`${t.url}/dashboard/numbers`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
  });

  it('refuses a key creation posted without its CSRF token with 403, and creates nothing', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const forms: Record<string, string>[] = [{}, { _csrf: 'forged' }];
    for (const form of forms) {
      const res = await page.request.post(`${t.url}/dashboard/settings/api-keys`, { form });
      expect(res.status()).toBe(403);
      expect(await res.text()).not.toMatch(/tk_[A-Za-z0-9_-]{43}/);
    }
    expect(await t.server.services.accounts.listKeys(t.account.sid)).toHaveLength(1);
  });

  it("answers another account's key sid with the 404 page and leaves the key alone", async () => {
    const other = await t.newAccount('other');
    const [theirs] = await t.server.services.accounts.listKeys(other.sid);
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const shown = await page.goto(`${t.url}/dashboard/settings/api-keys/${theirs.sid}/revoke`);
    expect(shown!.status()).toBe(404);
    const csrf = (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!;
    const res = await page.request.post(`${t.url}/dashboard/settings/api-keys/${theirs.sid}/revoke`, {
      form: { _csrf: csrf },
    });
    expect(res.status()).toBe(404);
    expect(await accountWith(other.apiKey)).toBe(200);
  });
});
