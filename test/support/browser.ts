// Browser tests of the dashboard: Debian's headless Chromium driven by playwright-core (never a downloaded browser).
// One browser per test file (useBrowser); pages open with JavaScript off unless asked, since every page and form
// must work without it; helpers sign in, run axe-core inside the page, and write screenshots under test/artifacts/.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';

const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');

interface PageOptions {
  /** Run the page's scripts (default false: the dashboard must work without JavaScript). */
  javaScript?: boolean;
  /** Extra headers on every request of the page (e.g. X-Forwarded-Proto). */
  headers?: Record<string, string>;
}

export interface UsedBrowser {
  /** A page in a fresh context (its own cookies); closed with the browser at the end of the file. */
  newPage(options?: PageOptions): Promise<Page>;
}

/** Launches one Chromium for the test file (beforeAll) and closes it after (afterAll). */
export function useBrowser(): UsedBrowser {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: EXECUTABLE,
      // Nothing but the test server: no update checks, no sync, no field trials.
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async newPage({ javaScript = false, headers } = {}) {
      if (!browser) throw new Error('the browser is not running yet (use it inside tests)');
      const context = await browser.newContext({ javaScriptEnabled: javaScript, extraHTTPHeaders: headers });
      contexts.push(context);
      return context.newPage();
    },
  };
}

/** Signs in on the sign-in page with `apiKey`, and checks that it landed inside the dashboard. */
export async function signIn(page: Page, baseUrl: string, apiKey: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/sign-in`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState();
  expect(new URL(page.url()).pathname).not.toBe('/dashboard/sign-in');
}

/**
 * Runs axe-core on what the page shows and fails listing every serious or critical violation. The page may run
 * without JavaScript (and under the dashboard's CSP, which forbids injected scripts), so axe runs in a twin page:
 * same URL and cookies, the same HTML served to it from memory, its stylesheet from the server, scripts allowed.
 * One twin page serves every check of a browser, with axe-core loaded into each document it opens by an init script:
 * a new context, page and injection per check took about 0.45 s of its 0.7 s.
 */
export async function expectAccessible(page: Page): Promise<void> {
  const html = await page.content();
  // A request never carries the fragment; a navigation to another fragment of the same page would load nothing.
  const url = page.url().split('#')[0];
  const { cookies } = await page.context().storageState();
  const twin = await twinOf(page.context().browser()!);
  if (twin.served) throw new Error('expectAccessible: one check at a time per browser');
  const served = (twin.served = { url, html, answered: false });
  let violations: string[];
  try {
    await twin.page.context().clearCookies();
    await twin.page.context().addCookies(cookies);
    await twin.page.goto(url);
    // Checked: the twin holds the page's own HTML, not a copy fetched from the server again.
    if (!served.answered) throw new Error(`expectAccessible: the twin page did not load ${url} from the page's HTML`);
    violations = await twin.page.evaluate(async () => {
      const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
      return result.violations
        .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
        .map((v: any) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`);
    });
  } finally {
    twin.served = undefined;
  }
  expect(violations, `accessibility violations on ${url}`).toEqual([]);
}

interface Twin {
  page: Page;
  /** The check in progress: the navigation to `url` is answered with `html`; other requests go to the server. */
  served?: { url: string; html: string; answered: boolean };
}

const twins = new WeakMap<Browser, Promise<Twin>>();

/** The browser's twin page (made on first use; it closes with the browser). */
function twinOf(browser: Browser): Promise<Twin> {
  let twin = twins.get(browser);
  if (!twin) {
    twin = (async () => {
      const context = await browser.newContext({ javaScriptEnabled: true, bypassCSP: true });
      await context.addInitScript({ path: AXE_PATH });
      const made: Twin = { page: await context.newPage() };
      await context.route('**/*', (route) => {
        const served = made.served;
        if (served && route.request().isNavigationRequest() && route.request().url() === served.url) {
          served.answered = true;
          return route.fulfill({ status: 200, contentType: 'text/html', body: served.html });
        }
        return route.continue();
      });
      return made;
    })();
    twins.set(browser, twin);
  }
  return twin;
}

/** Writes a full-page screenshot to test/artifacts/<name>.png (ignored by git) for people to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
