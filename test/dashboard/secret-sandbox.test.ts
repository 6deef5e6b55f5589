// Dashboard Settings > Webhook secret and Sandbox in a real browser (JavaScript off), and the Calls, Verifications
// and Proxy sessions logs: reveal and rotate the secret (then a webhook carries both signatures), inject inbound
// traffic and find it in the logs, a verification code on the Sandbox page and nowhere else; axe and screenshots.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { deliveredCode, freshNumber, sendCode } from '../verify/flow.js';
import { createSession, participant, provisionPool } from '../support/proxy.js';
import { waitUntil } from '../support/wait.js';
import { expectAccessible, screenshot, signIn, useBrowser } from '../support/browser.js';

describe.each(ENGINES)('dashboard webhook secret and sandbox (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE });
  const receiver = useReceiver();
  const browser = useBrowser();

  it('reveals the secret only on request, rotates it after a confirmation, and webhooks then carry both', async () => {
    const account = t.account;
    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/settings/webhook-secret`);
    expect(await page.content()).not.toContain(account.webhookSecret);
    await expectAccessible(page);
    await screenshot(page, 'settings-webhook-secret');
    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#webhook-secret').textContent()).toBe(account.webhookSecret);
    await expectAccessible(page);

    await page.getByRole('link', { name: 'Rotate the secret…' }).click();
    await page.waitForLoadState();
    await expectAccessible(page);
    await screenshot(page, 'settings-webhook-secret-rotate');
    const form = {
      _csrf: (await page.locator('form.stack input[name="_csrf"]').getAttribute('value'))!,
      current: (await page.locator('form.stack input[name="current"]').getAttribute('value'))!,
    };
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.waitForLoadState();
    const rotated = (await page.locator('#webhook-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(account.webhookSecret);
    expect(await page.locator('.problem').textContent()).toMatch(/still signs until \d{4}-\d{2}-\d{2}T/);
    await expectAccessible(page);
    await screenshot(page, 'settings-webhook-secret-rotated');

    // The same form posted again (a double click, a reload): nothing is rotated, and the answer shows the new secret.
    const again = await page.request.post(`${t.url}/dashboard/settings/webhook-secret/rotate`, { form });
    expect(again.status()).toBe(200);
    const text = await again.text();
    expect(text).toContain('This secret was rotated already');
    expect(text).toContain(rotated);
    expect(await t.server.services.accounts.webhookSecret(account.sid)).toMatchObject({ webhook_secret: rotated });

    const from = await giveNumber(t, account);
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body: 'two signatures', status_callback: `${receiver.url}/rotated` },
    });
    await waitForStatus(account.client, data!.sid, 'delivered');
    await receiver.waitFor((r) => r.some((w) => w.path === '/rotated'));
    const delivery = receiver.received.find((w) => w.path === '/rotated')!;
    expect(delivery.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated).verify(delivery.body, delivery.headers)).not.toThrow();
    expect(() => new Webhook(account.webhookSecret).verify(delivery.body, delivery.headers)).not.toThrow();
  });

  it('injects an inbound message and call from the Sandbox page, and they appear in the logs', async () => {
    const account = await t.newAccount();
    const mine = await giveNumber(t, account);
    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/sandbox`);
    await expectAccessible(page);
    await screenshot(page, 'sandbox');
    await page.getByLabel('From (an outside number)').first().fill('+14155550999');
    await page.getByLabel('Body').fill('hello from outside');
    await page.getByRole('button', { name: 'Send the inbound message' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/logs\/messages\/SM[0-9a-f]{32}$/);
    expect(await page.locator('dd').allTextContents()).toEqual(
      expect.arrayContaining(['+14155550999', mine, 'hello from outside', 'inbound']),
    );
    await page.goto(`${t.url}/dashboard/logs/messages`);
    expect(await page.locator('tbody').textContent()).toContain('hello from outside');

    await page.goto(`${t.url}/dashboard/sandbox`);
    await page.getByLabel('From (an outside number)').nth(1).fill('+14155550998');
    await page.getByRole('button', { name: 'Send the inbound call' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/logs\/calls\/CA[0-9a-f]{32}$/);
    await expectAccessible(page);
    await screenshot(page, 'logs-call');
    await page.goto(`${t.url}/dashboard/logs/calls`);
    expect(await page.locator('tbody').textContent()).toContain('+14155550998');
    await expectAccessible(page);
    await screenshot(page, 'logs-calls');

    // A refused injection shows why, beside the field.
    await page.goto(`${t.url}/dashboard/sandbox`);
    await page.getByLabel('From (an outside number)').first().fill('not a number');
    await page.getByRole('button', { name: 'Send the inbound message' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#message-from-error').textContent()).toContain('E.164');
  });

  /** A new account holding a number, signed in on the Sandbox page; its form's CSRF token. */
  async function onSandboxPage() {
    const account = await t.newAccount();
    const mine = await giveNumber(t, account);
    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/sandbox`);
    const csrf = (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!;
    return { account, mine, page, csrf };
  }

  it('answers a Sandbox message holding a NUL with the error beside its body, and stores nothing', async () => {
    const { account, mine, page, csrf } = await onSandboxPage();
    const res = await page.request.post(`${t.url}/dashboard/sandbox/inbound-message`, {
      form: { _csrf: csrf, from: '+14155550997', to: mine, body: 'a\u0000b' },
    });
    expect(res.status()).toBe(400);
    expect(await res.text()).toContain('It must not contain NUL characters.');
    const { data } = await account.client.GET('/v1/messages', { params: { query: { to: mine } } });
    expect(data!.data).toEqual([]);
  });

  it("counts a Sandbox message's 1600 characters as the API does: an emoji is one", async () => {
    const { account, mine, page, csrf } = await onSandboxPage();
    const inject = (body: string) =>
      page.request.post(`${t.url}/dashboard/sandbox/inbound-message`, {
        form: { _csrf: csrf, from: '+14155550996', to: mine, body },
        maxRedirects: 0,
      });
    const refused = await inject('😀'.repeat(1601));
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toContain('At most 1600 characters.');
    expect((await inject('😀'.repeat(1600))).status()).toBe(303);
    const { data } = await account.client.GET('/v1/messages', { params: { query: { to: mine } } });
    expect(data!.data.map((m) => m.body)).toEqual(['😀'.repeat(1600)]);
  });

  it('shows a delivered verification code on the Sandbox page and nowhere in the Verifications log', async () => {
    const account = await t.newAccount();
    const to = freshNumber();
    const verification = await sendCode(account.client, { to, channel: 'sms' });
    const { code } = await waitUntil(() => deliveredCode(account.client, to), 20_000, 'the code to be delivered');
    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/sandbox`);
    await page.getByLabel('Number the code was sent to').fill(to);
    await page.getByRole('button', { name: 'Show the last code' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#verification-code').textContent()).toBe(code);

    await page.goto(`${t.url}/dashboard/logs/verifications`);
    expect(await page.locator('tbody').textContent()).toContain(to);
    expect(await page.content()).not.toContain(code);
    await expectAccessible(page);
    await screenshot(page, 'logs-verifications');
    await page.goto(`${t.url}/dashboard/logs/verifications/${verification.sid}`);
    expect(await page.locator('h1').textContent()).toContain(verification.sid);
    expect(await page.content()).not.toContain(code);
    await expectAccessible(page);
    await screenshot(page, 'logs-verification');
  });

  it('lists proxy sessions and shows one with its participants', async () => {
    const account = await t.newAccount();
    await provisionPool(t, account, 2);
    const session = await createSession(account.client, {
      unique_name: 'order <42>',
      participants: [{ identifier: participant(1) }, { identifier: participant(2) }],
    });
    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/logs/proxy-sessions?status=open`);
    expect(await page.locator('tbody').textContent()).toContain('order <42>');
    await expectAccessible(page);
    await screenshot(page, 'logs-proxy-sessions');
    await page.getByRole('link', { name: session.sid }).click();
    await page.waitForLoadState();
    expect(await page.locator('dd').allTextContents()).toEqual(expect.arrayContaining(['order <42>', 'open']));
    await expectAccessible(page);
    await screenshot(page, 'logs-proxy-session');
  });
});
