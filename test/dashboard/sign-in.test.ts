// Dashboard sign-in: an API key exchanged for a session cookie (its flags), sign-out, idle expiry, the CSRF check
// and the security headers of every page, in a real browser with JavaScript off.
import { describe, expect, it } from 'vitest';
import { ENGINES, startTestServer, useTestServer } from '../support/server.js';
import { TestClock } from '../support/clock.js';
import { expectAccessible, screenshot, signIn, useBrowser } from '../support/browser.js';

const IDLE_MINUTES = 30;

/** The Set-Cookie of the session after a sign-in with `apiKey`, by plain HTTP (GET the form, POST it). */
async function signInCookie(baseUrl: string, apiKey: string, headers: Record<string, string> = {}) {
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

describe.each(ENGINES)('dashboard sign-in (%s)', (engine) => {
  const clock = new TestClock();
  const t = useTestServer({ engine, clock });
  const browser = useBrowser();

  it('refuses a bad key with a message, and lands a good key inside the dashboard', async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/dashboard/sign-in`);
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
    await page.getByLabel('API key').fill('tk_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#api_key-error').textContent()).toContain('not valid');
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await expectAccessible(page);
    await screenshot(page, 'sign-in-refused');

    await signIn(page, t.url, t.account.apiKey);
    expect(new URL(page.url()).pathname).toBe('/dashboard/logs/messages');
    await expect.poll(() => page.locator('header').textContent()).toContain(t.account.sid);
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link', { name: 'Addresses' }).getAttribute('href')).toBe(
      '/dashboard/settings/addresses',
    );
    expect(await nav.textContent()).toMatch(/Settings\s+Addresses/);
  });

  it('signs out: the session ends, and its cookie no longer opens a page', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const [cookie] = await page.context().cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.url}/dashboard/sign-in`);
    // The old cookie, replayed, is sent back to sign-in.
    const replay = await fetch(`${t.url}/dashboard/numbers`, {
      redirect: 'manual',
      headers: { cookie: `${cookie.name}=${cookie.value}` },
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/dashboard/sign-in');
  });

  it('sets the session cookie HttpOnly, SameSite=Strict, Path=/dashboard, and not Secure over plain http', async () => {
    const cookie = await signInCookie(t.url, t.account.apiKey);
    const attributes = cookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/dashboard']));
    expect(attributes).not.toContain('secure');
    expect(cookie).toMatch(/^dashboard_session=ds_[A-Za-z0-9_-]{43};/);
  });

  it('ends a session idle for longer than DASHBOARD_IDLE_MINUTES, and keeps one in use alive', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    clock.advance((IDLE_MINUTES - 1) * 60_000);
    await page.goto(`${t.url}/dashboard/settings/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/api-keys');
    clock.advance((IDLE_MINUTES - 1) * 60_000);
    await page.goto(`${t.url}/dashboard/settings/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/api-keys');
    clock.advance((IDLE_MINUTES + 1) * 60_000);
    await page.goto(`${t.url}/dashboard/settings/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
  });

  it('refuses a form posted without its CSRF token with a 403 page, and the session stays', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const refused = await page.request.post(`${t.url}/dashboard/sign-out`, { form: { _csrf: 'forged' } });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain('Forbidden');
    const bare = await page.request.post(`${t.url}/dashboard/sign-out`, { form: {} });
    expect(bare.status()).toBe(403);
    await page.goto(`${t.url}/dashboard/settings/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/api-keys');
  });

  it('refuses a sign-in posted without the form token', async () => {
    const res = await fetch(`${t.url}/dashboard/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ api_key: t.account.apiKey }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);
  });

  it('answers every page with a strict CSP, nosniff, same-origin referrers and no caching', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    for (const path of ['/dashboard/sign-in', '/dashboard/settings/api-keys', '/dashboard/no-such-page']) {
      const res = (await page.goto(`${t.url}${path}`))!;
      const headers = res.headers();
      const csp = headers['content-security-policy'];
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
        'cache-control': 'no-store',
      });
    }
  });

  it('answers an unknown page with the 404 page', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    const res = (await page.goto(`${t.url}/dashboard/no-such-page`))!;
    expect(res.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
    await expectAccessible(page);
    await screenshot(page, 'not-found');
  });
});

describe('dashboard cookies behind https', () => {
  it('sets Secure on the session cookie when PUBLIC_URL is https (a TLS proxy in front)', async () => {
    const t = await startTestServer(ENGINES[0], { PUBLIC_URL: 'https://voice.example.com' });
    try {
      const { apiKey } = await t.newAccount();
      const cookie = await signInCookie(t.url, apiKey);
      expect(cookie.split(';').map((a) => a.trim().toLowerCase())).toContain('secure');
    } finally {
      await t.stop();
    }
  });
});
