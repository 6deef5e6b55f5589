// What the SMPP carrier offers and refuses at request time: SMS only (MMS, RCS, media, calls, voice and WhatsApp
// verifications answer 422 channel_unavailable); verification codes by sms reach the SMSC; the sandbox routes 404;
// /readyz reports the carrier; the number search offers SMPP_NUMBERS only.
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { waitUntil } from '../support/wait.js';
import { signInCookie } from '../support/dashboard.js';
import { freshDestination, useSmppServer, waitForSubmits } from './carrier-support.js';

describe.each(ENGINES)('SMPP carrier: channels (%s)', (engine) => {
  const f = useSmppServer(engine);

  it.each([
    ['media_url', { media_url: ['https://example.com/cat.png'] }],
    ['channel mms', { channel: 'mms' as const }],
    ['channel rcs', { channel: 'rcs' as const }],
  ])('answers 422 channel_unavailable to a message with %s', async (_name, extra) => {
    const from = await giveNumber(f.t, f.account);
    const { data, error, response } = await f.account.client.POST('/v1/messages', {
      body: { from, to: freshDestination(), body: 'Look', ...extra },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ code: 'channel_unavailable', type: '/problems/channel_unavailable' });
    const list = await f.account.client.GET('/v1/messages', { params: { query: { from } } });
    expect(list.data!.data).toEqual([]);
  });

  it('sends a verification code by sms through the SMSC', async () => {
    const to = '+13125550123';
    const { data } = await f.account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' } });
    expect(data).toMatchObject({ status: 'pending', channel: 'sms' });
    const [submit] = await waitForSubmits(f.smsc, to);
    expect(submit.text).toMatch(/\b\d{6}\b/);
    expect(submit.registeredDelivery).toBe(1);
  });

  it('fails a verification whose code the SMSC refuses', async () => {
    f.smsc.respondWith(() => ({ status: 0x0b }));
    const { data } = await f.account.client.POST('/v1/verify/send', { body: { to: '+13125550127', channel: 'sms' } });
    await waitUntil(async () => {
      const read = await f.account.client.GET('/v1/verify/{sid}', { params: { path: { sid: data!.sid } } });
      return read.data?.status === 'failed';
    });
  });

  it.each(['voice', 'whatsapp'] as const)(
    'answers 422 channel_unavailable to a verification by %s',
    async (channel) => {
      const { error, response } = await f.account.client.POST('/v1/verify/send', {
        body: { to: '+13125550124', channel },
      });
      expect(response.status).toBe(422);
      expect(error).toMatchObject({ code: 'channel_unavailable' });
    },
  );

  it('answers 422 channel_unavailable to a call', async () => {
    const from = await giveNumber(f.t, f.account);
    const { error, response } = await f.account.client.POST('/v1/calls', {
      body: { from, to: '+13125550125', twiml: '<Response><Say>Hi</Say></Response>' },
    });
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ code: 'channel_unavailable' });
  });

  it('answers 404 on the sandbox routes', async () => {
    const to = await giveNumber(f.t, f.account);
    const { response } = await f.account.client.POST('/v1/sandbox/inbound-messages', {
      body: { from: '+13125550126', to, body: 'hi' },
    });
    expect(response.status).toBe(404);
  });

  it("hides the dashboard's Sandbox page: not in the navigation, and its address is the 404 page", async () => {
    const cookie = (await signInCookie(f.t.url, f.account.apiKey)).split(';')[0];
    const home = await fetch(`${f.t.url}/dashboard/numbers`, { headers: { cookie } });
    expect(home.status).toBe(200);
    const nav = await home.text();
    expect(nav).toContain('href="/dashboard/numbers"');
    expect(nav).not.toContain('href="/dashboard/sandbox"');
    const sandbox = await fetch(`${f.t.url}/dashboard/sandbox`, { headers: { cookie } });
    expect(sandbox.status).toBe(404);
    expect(await sandbox.text()).toContain('<title>Not found');
  });

  it('offers only SMPP_NUMBERS in the number search, and provisions no other', async () => {
    const { data } = await f.account.client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 200 } },
    });
    expect(data!.data.length).toBeGreaterThan(0);
    for (const n of data!.data) expect(n.phone_number).toMatch(/^\+121255501\d\d$/);
    const { response } = await f.account.client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: '+14155550100' },
    });
    expect(response.status).toBe(409);
  });

  it('reports the carrier ready on /readyz while bound', async () => {
    const res = await fetch(`${f.t.directUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', database: 'ok', carrier: 'ok' });
  });
});
