// Dashboard logs in a real browser (JavaScript off): a message sent through the API found in the Messages log
// (filter, paging), its timeline and its webhook attempts (500 then 200), "retry now" for a given-up event, a
// hostile body rendered as text, another account's sid answering the not-found page; axe and a screenshot of each.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { expectAccessible, screenshot, signIn, useBrowser } from '../support/browser.js';

const HOSTILE = `<script>window.__x=1</script>"><img src=x onerror="window.__x=2">`;

describe.each(ENGINES)('dashboard logs (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, WEBHOOK_MAX_ATTEMPTS: '2' } });
  const receiver = useReceiver();
  const browser = useBrowser();

  it('finds a sent message by filter; its page shows the timeline and a webhook answered 500 then 200', async () => {
    const account = t.account;
    const from = await giveNumber(t, account);
    let flaky = 0;
    receiver.answer = (r) =>
      r.path === '/flaky' && flaky++ === 0 ? { status: 500, body: 'not now <b>' } : { status: 200, body: 'thanks' };
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550177', body: HOSTILE, status_callback: `${receiver.url}/flaky` },
    });
    const sid = data!.sid;
    await waitForStatus(account.client, sid, 'delivered');
    await receiver.waitFor((r) => r.filter((w) => w.path === '/flaky').length === 3);

    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/logs/messages`);
    await page.getByLabel('To', { exact: true }).fill('+14155550177');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).searchParams.get('to')).toBe('+14155550177');
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(HOSTILE.slice(0, 60));
    await expectAccessible(page);
    await screenshot(page, 'logs-messages');

    await page.getByRole('link', { name: sid }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/logs/messages/${sid}`);
    const steps = await page.locator('ol.timeline .status').allTextContents();
    expect(steps).toEqual(['queued', 'sending', 'sent', 'delivered']);
    const first = page.locator('section.delivery').first();
    expect(await first.locator('h3').textContent()).toContain('message.sending');
    expect(await first.locator('.response-status').allTextContents()).toEqual(['500', '200']);
    expect(await first.locator('.latency').allTextContents()).toEqual([
      expect.stringMatching(/^\d+ ms$/),
      expect.stringMatching(/^\d+ ms$/),
    ]);
    expect(await first.locator('pre.answer').allTextContents()).toEqual(['not now <b>', 'thanks']);
    expect(await page.locator('dd').allTextContents()).toContain(HOSTILE);
    await expectAccessible(page);
    await screenshot(page, 'logs-message');

    // With JavaScript on, nothing of the body runs, on the list or on the record.
    const live = await browser.newPage({ javaScript: true });
    await signIn(live, t.url, account.apiKey);
    for (const path of ['/dashboard/logs/messages', `/dashboard/logs/messages/${sid}`]) {
      await live.goto(`${t.url}${path}`);
      expect(await live.evaluate(() => (globalThis as any).__x)).toBeUndefined();
      expect(await live.locator('img[src="x"]').count()).toBe(0);
    }
  });

  it('pages through more than one page of messages forward and back, and filters by days', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    const sids: string[] = [];
    for (let i = 0; i < 52; i++) {
      const { data } = await account.client.POST('/v1/messages', { body: { from, to: '+14155550188', body: `n${i}` } });
      sids.push(data!.sid);
    }
    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/logs/messages`);
    const shown = () => page.locator('tbody tr td:first-child').allTextContents();
    expect(await shown()).toEqual([...sids].reverse().slice(0, 50));
    expect(await page.getByRole('link', { name: 'Previous page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForLoadState();
    expect(await shown()).toEqual([sids[1], sids[0]]);
    await page.getByRole('link', { name: 'Previous page' }).click();
    await page.waitForLoadState();
    expect(await shown()).toEqual([...sids].reverse().slice(0, 50));

    // The date range: days, the last one included; a day that does not exist is named.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await page.goto(`${t.url}/dashboard/logs/messages?created_from=${day(-1)}&created_to=${day(1)}`);
    expect(await shown()).toHaveLength(50);
    await page.goto(`${t.url}/dashboard/logs/messages?created_to=${day(-2)}`);
    expect(await shown()).toEqual([]);
    const bad = await page.goto(`${t.url}/dashboard/logs/messages?created_from=2026-02-30`);
    expect(bad!.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('"Created from" must be a date');
  });

  it('retries a given-up webhook once more from its record page', async () => {
    const account = await t.newAccount();
    const from = await giveNumber(t, account);
    receiver.answer = (r) => (r.path === '/down' ? { status: 503, body: 'down' } : { status: 200 });
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'hi', status_callback: `${receiver.url}/down` },
    });
    const sid = data!.sid;
    const event = async () => (await t.server.services.logs.deliveries(account.sid, [sid]))[0];
    await waitUntil(async () => (await event())?.status === 'failed', 20_000, 'the webhook to be given up');

    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/logs/messages/${sid}`);
    const section = page.locator('section.delivery').first();
    expect(await section.locator('tr.attempt').count()).toBe(2);
    await expectAccessible(page);
    await section.getByRole('button', { name: 'Retry now' }).click();
    await page.waitForLoadState();
    expect(await page.locator('.flash').textContent()).toContain('Retrying now');
    await waitUntil(async () => {
      const e = await event();
      return e?.attempt_log.length === 3 && e.status === 'failed';
    });
    await page.reload();
    expect(await page.locator('section.delivery').first().locator('.response-status').allTextContents()).toEqual([
      '503',
      '503',
      '503',
    ]);
    await screenshot(page, 'logs-message-retried');
  });

  it("answers another account's message or call sid with the not-found page", async () => {
    const owner = await t.newAccount();
    const from = await giveNumber(t, owner);
    const { data: message } = await owner.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'x' },
    });
    const { data: call } = await owner.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', twiml: '<Response><Hangup/></Response>' },
    });
    const page = await browser.newPage();
    await signIn(page, t.url, t.account.apiKey);
    for (const path of [`/dashboard/logs/messages/${message!.sid}`, `/dashboard/logs/calls/${call!.sid}`]) {
      const res = await page.goto(`${t.url}${path}`);
      expect(res!.status()).toBe(404);
      expect(await page.locator('h1').textContent()).toBe('Not found');
    }
  });
});
