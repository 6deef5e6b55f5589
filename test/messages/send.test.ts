// POST /v1/messages and GET /v1/messages/{sid} through the Prism contract proxy: fields, lifecycle, segments, channels.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber, giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { useReceiver } from '../support/webhook-receiver.js';

describe.each(ENGINES)('sending messages (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE, contract: true });
  // Callbacks go to a receiver on loopback: tests reach no other host.
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  it('answers 201 with a queued message carrying every documented field', async () => {
    const before = Date.now();
    const { data, response } = await account.client.POST('/v1/messages', {
      body: {
        from,
        to: '+14155550123',
        body: 'Your order 1042 has shipped.',
        status_callback: `${receiver.url}/cb`,
      },
    });
    expect(response.status).toBe(201);
    expect(data).toEqual({
      sid: expect.stringMatching(/^SM[0-9a-f]{32}$/),
      account_sid: account.sid,
      from,
      to: '+14155550123',
      body: 'Your order 1042 has shipped.',
      status: 'queued',
      direction: 'outbound-api',
      channel: 'sms',
      num_segments: 1,
      num_media: 0,
      media_url: [],
      price: null,
      price_unit: 'USD',
      error_code: null,
      error_message: null,
      send_at: null,
      validity_period: 14400,
      status_callback: `${receiver.url}/cb`,
      date_created: expect.any(String),
      date_updated: expect.any(String),
      date_sent: null,
    });
    expect(Date.parse(data!.date_created)).toBeGreaterThanOrEqual(before - 1000);
    expect(t.violations()).toEqual([]);
  });

  it('moves the message to delivered, setting date_sent and a per-segment price when sent', async () => {
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550124', body: 'x'.repeat(200) },
    });
    const delivered = await waitForStatus(account.client, data!.sid, 'delivered');
    expect(delivered.num_segments).toBe(2);
    expect(delivered.price).toBeCloseTo(2 * 0.0079, 6);
    expect(delivered.price_unit).toBe('USD');
    expect(Date.parse(delivered.date_sent!)).toBeGreaterThanOrEqual(Date.parse(delivered.date_created));
    expect(t.violations()).toEqual([]);
  });

  it.each([
    ['160 GSM-7 characters', 1, 'a'.repeat(160)],
    ['161 GSM-7 characters', 2, 'a'.repeat(161)],
    ['306 GSM-7 characters', 2, 'a'.repeat(306)],
    ['307 GSM-7 characters', 3, 'a'.repeat(307)],
    ['158 GSM-7 characters of which 3 take two septets (extension table)', 2, 'a'.repeat(155) + '{}€'],
    ['70 UCS-2 characters', 1, 'é'.repeat(69) + 'ж'],
    ['71 UCS-2 characters', 2, 'ж'.repeat(71)],
    ['134 UCS-2 characters', 2, 'ж'.repeat(134)],
    ['135 UCS-2 characters', 3, 'ж'.repeat(135)],
  ])('counts %s as %i segment(s)', async (_name, segments, body) => {
    const { data } = await account.client.POST('/v1/messages', { body: { from, to: '+14155550125', body } });
    expect(data!.num_segments).toBe(segments);
  });

  it('sends media as MMS, priced per message', async () => {
    const media_url = ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'];
    const { data } = await account.client.POST('/v1/messages', { body: { from, to: '+14155550126', media_url } });
    expect(data).toMatchObject({ channel: 'mms', num_media: 2, media_url, body: '', num_segments: 1 });
    const delivered = await waitForStatus(account.client, data!.sid, 'delivered');
    expect(delivered.price).toBe(0.02);
  });

  it('sends MMS without media when asked for channel mms', async () => {
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550126', body: 'hi', channel: 'mms' },
    });
    expect(data!.channel).toBe('mms');
  });

  it('sends RCS to an RCS-capable number, which reads it', async () => {
    const { data } = await account.client.POST('/v1/messages', {
      body: { from, to: '+15005550005', body: 'Your driver is here', channel: 'rcs' },
    });
    expect(data!.channel).toBe('rcs');
    const read = await waitForStatus(account.client, data!.sid, 'read');
    expect(read.price).toBe(0.0045);
  });

  it('falls back from RCS to SMS, or to MMS with media, where RCS is not supported', async () => {
    const sms = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550127', body: 'hi', channel: 'rcs' },
    });
    expect(sms.data!.channel).toBe('sms');
    const mms = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550127', media_url: ['https://cdn.example.com/a.png'], channel: 'rcs' },
    });
    expect(mms.data!.channel).toBe('mms');
    expect((await waitForStatus(account.client, sms.data!.sid, 'delivered')).status).toBe('delivered');
  });

  it('takes a body of 1600 characters counted as the spec counts them: an emoji is one', async () => {
    const body = '😀'.repeat(1600);
    const { data, response } = await account.client.POST('/v1/messages', {
      body: { from, to: '+14155550123', body },
    });
    expect(response.status).toBe(201);
    expect(data!.body).toBe(body);
  });

  it('accepts a form-encoded body with repeated media_url keys', async () => {
    const form = createTelephonyClient({ baseUrl: t.url, apiKey: account.apiKey, encoding: 'form' });
    const { data, response } = await form.POST('/v1/messages', {
      body: {
        from,
        to: '+14155550128',
        body: 'form',
        media_url: ['https://cdn.example.com/1.png', 'https://cdn.example.com/2.png'],
        validity_period: 600,
      },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ body: 'form', num_media: 2, validity_period: 600, channel: 'mms' });
    expect(t.violations()).toEqual([]);
  });

  it('answers 422 from_number_not_owned when from is not a number of the account', async () => {
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: account.apiKey });
    const other = await t.newAccount();
    const theirs = await giveNumber(t, other);
    for (const notMine of [theirs, '+14155550999']) {
      const { error, response } = await direct.POST('/v1/messages', {
        body: { from: notMine, to: '+14155550123', body: 'hi' },
      });
      expect(response.status).toBe(422);
      expect(error).toMatchObject({ code: 'from_number_not_owned' });
    }
  });

  it('answers 422 from_number_not_capable for what the number cannot send, and writes nothing', async () => {
    /** A number of the country provisioned for the account, one whose capabilities lack `lacking`. */
    const lackingNumber = async (country: 'GB' | 'US', lacking: 'sms' | 'mms') => {
      const { data } = await account.client.GET('/v1/available-phone-numbers/{country}/Local', {
        params: { path: { country }, query: { page_size: 50 } },
      });
      for (const candidate of data!.data.filter((n) => !n.capabilities[lacking])) {
        const { data: number } = await account.client.POST('/v1/incoming-phone-numbers', {
          body: { PhoneNumber: candidate.phone_number },
        });
        if (number) return number.phone_number;
      }
      throw new Error(`no ${country} number without ${lacking} could be provisioned`);
    };
    const landline = await lackingNumber('GB', 'sms');
    const noMms = await lackingNumber('US', 'mms');
    const cases = [
      { from: landline, body: 'hi', missing: 'SMS' },
      { from: noMms, body: 'a picture', media_url: ['https://cdn.example.com/a.png'], missing: 'MMS' },
      { from: noMms, body: 'as mms', channel: 'mms' as const, missing: 'MMS' },
    ];
    // With an Idempotency-Key the send runs in a transaction of its own; without, on PostgreSQL, in a batched
    // statement: both refuse it.
    for (const { missing, ...send } of cases) {
      for (const params of [{}, { header: { 'Idempotency-Key': crypto.randomUUID() } }]) {
        const { error, response } = await account.client.POST('/v1/messages', {
          params,
          body: { to: '+14155550123', ...send },
        });
        expect(response.status).toBe(422);
        expect(error).toMatchObject({
          code: 'from_number_not_capable',
          detail: `${send.from} cannot send ${missing}: its capabilities do not include it.`,
        });
      }
    }
    for (const number of [landline, noMms]) {
      const { data } = await account.client.GET('/v1/messages', { params: { query: { from: number } } });
      expect(data!.data).toEqual([]);
    }
    // What it can do, it sends.
    const { response } = await account.client.POST('/v1/messages', {
      body: { from: noMms, to: '+14155550123', body: 'text only' },
    });
    expect(response.status).toBe(201);
    expect(t.violations()).toEqual([]);
  });

  it("answers 404 for another account's message, and for an unknown sid", async () => {
    const { data } = await account.client.POST('/v1/messages', { body: { from, to: '+14155550129', body: 'mine' } });
    const other = await t.newAccount();
    const direct = createTelephonyClient({ baseUrl: t.directUrl, apiKey: other.apiKey });
    for (const sid of [data!.sid, 'SM' + '0'.repeat(32)]) {
      const { error, response } = await direct.GET('/v1/messages/{sid}', { params: { path: { sid } } });
      expect(response.status).toBe(404);
      expect(error).toMatchObject({ code: 'not_found' });
    }
  });
});
