// The accessibility helper itself: one twin page serves every check of a browser, so a check must see the page it was
// given, not the one before it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectAccessible, useBrowser } from '../support/browser.js';

const PAGES: Record<string, string> = {
  '/good': '<main><h1>Fine</h1><p>Nothing to see.</p></main>',
  '/bad': '<main><h1>Broken</h1><img src="/missing.png"><button></button></main>',
};

const browser = useBrowser();
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const body = PAGES[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html', 'set-cookie': 'session=1; Path=/; HttpOnly' });
    res.end(`<!doctype html><html lang="en"><head><title>Check</title></head><body>${body ?? ''}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('fails on an image without text and a button without a name, and passes the pages before and after', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/good`);
  await expectAccessible(page);
  await page.goto(`${base}/bad`);
  const failure = await expectAccessible(page).then(
    () => undefined,
    (error: Error) => error.message,
  );
  expect(failure).toMatch(/accessibility violations on .*\/bad/);
  await page.goto(`${base}/good`);
  await expectAccessible(page);
});

it('checks the page as it is shown, not as the server would send it again', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/good#top`);
  await page.setContent(
    `<!doctype html><html lang="en"><head><title>Check</title></head><body>${PAGES['/bad']}</body></html>`,
  );
  const failure = await expectAccessible(page).then(
    () => undefined,
    (error: Error) => error.message,
  );
  expect(failure).toMatch(/accessibility violations on \S*\/good:/);
});
