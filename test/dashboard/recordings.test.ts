// A call's recording on its log page plays in an <audio controls> element, from a dashboard route that serves only
// the signed-in account's recordings; the page's "retry now" form, like every form, is refused without its token.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, finalCall, sayThenHangup } from '../calls/support.js';
import { expectAccessible, screenshot, signIn, useBrowser } from '../support/browser.js';

describe.each(ENGINES)('dashboard call recordings (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const browser = useBrowser();

  it("plays a call's recording for its account only, and refuses a form post without its CSRF token", async () => {
    const { account, from } = await accountWithNumber(t);
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', twiml: sayThenHangup('Hello there'), record: true },
    });
    const sid = data!.sid;
    await finalCall(account, sid);
    await waitUntil(async () => {
      const { data: recordings } = await t.server.services.calls.recordings(account.sid, sid, {});
      return recordings[0]?.status === 'completed';
    });

    const page = await browser.newPage();
    await signIn(page, t.url, account.apiKey);
    await page.goto(`${t.url}/dashboard/logs/calls/${sid}`);
    const audio = page.locator('audio[controls]');
    expect(await audio.count()).toBe(1);
    const src = (await audio.getAttribute('src'))!;
    expect(src).toMatch(/^\/dashboard\/logs\/recordings\/RE[0-9a-f]{32}\/media$/);
    const media = await page.request.get(`${t.url}${src}`);
    expect(media.status()).toBe(200);
    expect(media.headers()['content-type']).toBe('audio/wav');
    expect((await media.body()).subarray(0, 4).toString()).toBe('RIFF');
    await expectAccessible(page);
    await screenshot(page, 'logs-call-recording');

    const forged = await page.request.post(`${t.url}/dashboard/logs/calls/${sid}/retry`, { form: { event_id: 'x' } });
    expect(forged.status()).toBe(403);

    const other = await browser.newPage();
    await signIn(other, t.url, t.account.apiKey);
    expect((await other.request.get(`${t.url}${src}`)).status()).toBe(404);
    expect((await other.goto(`${t.url}/dashboard/logs/calls/${sid}`))!.status()).toBe(404);
  });
});
