// Dashboard input no page takes: a NUL in a path or a query answers the 400 page before any page reads it
// (PostgreSQL's text cannot hold one: a sid or filter with one failed its query, a 500); one in a form field is
// refused beside the field by the page's check against the spec's schema. Nothing is written. Plain HTTP, no browser.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { signInCookie } from '../support/dashboard.js';
import { giveNumber } from '../support/numbers.js';

describe.each(ENGINES)('dashboard input with a NUL (%s)', (engine) => {
  const t = useTestServer({ engine });

  /** The signed-in session's cookie and CSRF token. */
  async function session() {
    const cookie = (await signInCookie(t.url, t.account.apiKey)).split(';')[0];
    const page = await fetch(`${t.url}/dashboard/logs/messages`, { headers: { cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
    return { cookie, csrf };
  }

  const addresses = async (cookie: string) =>
    (await (await fetch(`${t.url}/dashboard/settings/addresses`, { headers: { cookie } })).text()).match(
      /AD[0-9a-f]{32}/g,
    ) ?? [];

  it('answers a NUL in a path or a query with the 400 page, on GET and POST', async () => {
    const { cookie, csrf } = await session();
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    const requests: [string, RequestInit][] = [
      ['/dashboard/logs/messages?to=%00', { headers: { cookie } }],
      ['/dashboard/logs/calls?from=a%00b', { headers: { cookie } }],
      ['/dashboard/logs/calls/%00', { headers: { cookie } }],
      ['/dashboard/numbers/%00', { headers: { cookie } }],
      ['/dashboard/settings/api-keys/%00/revoke', { method: 'POST', headers: form, body: `_csrf=${csrf}` }],
      ['/dashboard/logs/calls/%00/retry', { method: 'POST', headers: form, body: `_csrf=${csrf}` }],
    ];
    const answers = [];
    for (const [path, init] of requests) {
      const res = await fetch(`${t.url}${path}`, { ...init, redirect: 'manual' });
      answers.push([path, res.status, /<title>Bad request/.test(await res.text())]);
    }
    expect(answers).toEqual(requests.map(([path]) => [path, 400, true]));
    // The same pages without the NUL are read as usual.
    const plain = await fetch(`${t.url}/dashboard/logs/messages?to=%2B14155550100`, { headers: { cookie } });
    expect(plain.status).toBe(200);
  });

  it("takes a NUL in the retry form's event_id as no event given up: nothing to retry", async () => {
    const { cookie, csrf } = await session();
    const from = await giveNumber(t, t.account);
    const sent = await t.account.client.POST('/v1/messages', { body: { from, to: '+14155550123', body: 'hi' } });
    const page = `/dashboard/logs/messages/${sent.data!.sid}`;
    const res = await fetch(`${t.url}${page}/retry`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, event_id: 'msg_\0' }),
    });
    expect([res.status, res.headers.get('location')]).toEqual([303, page]);
    const shown = await (await fetch(`${t.url}${page}`, { headers: { cookie } })).text();
    expect(shown).toContain('That webhook was not given up; nothing to retry.');
  });

  it('answers a NUL in a form field with the error beside the field, and writes nothing', async () => {
    const { cookie, csrf } = await session();
    const before = await addresses(cookie);
    const res = await fetch(`${t.url}/dashboard/settings/addresses`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({
        _csrf: csrf,
        customer_name: 'Example\0 GmbH',
        street: 'Friedrichstraße 123',
        city: 'Berlin',
        region: 'Berlin',
        postal_code: '10117',
        iso_country: 'DE',
      }),
    });
    const page = await res.text();
    expect(res.status).toBe(422);
    expect(/id="f-customer_name-error"[^>]*>([^<]*)</.exec(page)?.[1]).toBe('does not have the expected form');
    expect(await addresses(cookie)).toEqual(before);
  });
});
