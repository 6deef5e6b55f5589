import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { FAST_PIPELINE } from '../support/messaging.js';
import { waitUntil } from '../support/wait.js';

// The spam score follows what the platform sees of a number, with traffic made through the API only.
describe.each(ENGINES)('spam score from platform signals (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE, contract: true });

  /** Searches the US inventory and provisions the first number offered. */
  async function provision(): Promise<{ sid: string; phoneNumber: string }> {
    const search = await t.account.client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' } },
    });
    if (!search.data) throw new Error(`search answered ${search.response.status}: ${JSON.stringify(search.error)}`);
    const offered = search.data.data[0].phone_number;
    const { data, response } = await t.account.client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: offered },
    });
    expect(response.status).toBe(201);
    return { sid: data!.sid, phoneNumber: data!.phone_number };
  }

  async function lookup(number: string) {
    const { data, response } = await t.account.client.GET('/v1/lookups/phone-numbers/{number}', {
      params: { path: { number } },
    });
    expect(response.status).toBe(200);
    return {
      score: data!.spam_score,
      reasons: data!.spam_reasons.map((r) => [r.reason, r.weight]),
      descriptions: data!.spam_reasons.map((r) => r.description),
    };
  }

  async function send(from: string, to: string) {
    const { response } = await t.account.client.POST('/v1/messages', { body: { from, to, body: 'hello' } });
    expect(response.status).toBe(201);
  }

  /** n distinct valid San Francisco numbers nobody holds. */
  const recipients = (n: number) => Array.from({ length: n }, (_, i) => `+1415555${String(1000 + i)}`);

  it('lowers the score of a number while an account holds it and raises it again once released', async () => {
    const { sid, phoneNumber } = await provision();
    expect(await lookup(phoneNumber)).toMatchObject({ score: 0, reasons: [['held_on_platform', -10]] });

    const { response } = await t.account.client.DELETE('/v1/incoming-phone-numbers/{sid}', {
      params: { path: { sid } },
    });
    expect(response.status).toBe(204);
    expect(await lookup(phoneNumber)).toMatchObject({ score: 5, reasons: [['not_held_on_platform', 5]] });
    expect(t.violations()).toEqual([]);
  });

  it('raises the score of a number that sends many messages to many recipients', async () => {
    const { phoneNumber } = await provision();
    for (const to of recipients(24)) await send(phoneNumber, to);
    // 24 messages to 24 numbers: below both thresholds.
    expect(await lookup(phoneNumber)).toMatchObject({ score: 0, reasons: [['held_on_platform', -10]] });

    await send(phoneNumber, '+14155552000');
    expect((await lookup(phoneNumber)).reasons).toEqual([
      ['many_distinct_recipients', 25],
      ['held_on_platform', -10],
    ]);

    // 50 messages in the hour, to 26 distinct numbers.
    for (const to of recipients(25)) await send(phoneNumber, to);
    const after = await lookup(phoneNumber);
    expect(after.reasons).toEqual([
      ['high_outbound_volume', 25],
      ['many_distinct_recipients', 25],
      ['held_on_platform', -10],
    ]);
    expect(after.score).toBe(40);
    expect(after.descriptions.slice(0, 2)).toEqual([
      'High volume of messages from it through this platform in the last hour.',
      'It messaged many distinct numbers in the last hour.',
    ]);
    expect(t.violations()).toEqual([]);
  });

  it('raises the score of a number whose messages mostly fail or go undelivered, once they have failed', async () => {
    const { phoneNumber } = await provision();
    // 5 delivered, 6 to magic numbers that fail or go undelivered.
    const destinations = [
      ...recipients(5),
      '+15005550001',
      '+15005550002',
      '+15005550003',
      '+15005550001',
      '+15005550002',
      '+15005550003',
    ];
    for (const to of destinations) await send(phoneNumber, to);

    const final = ['delivered', 'failed', 'undelivered'];
    await waitUntil(
      async () => {
        const { data } = await t.account.client.GET('/v1/messages', {
          params: { query: { from: phoneNumber, page_size: 50 } },
        });
        return data!.data.length === destinations.length && data!.data.every((m) => final.includes(m.status));
      },
      30_000,
      'every message to reach a final status',
    );

    const result = await lookup(phoneNumber);
    expect(result.reasons).toEqual([
      ['high_failure_rate', 30],
      ['held_on_platform', -10],
    ]);
    expect(result.score).toBe(20);
    expect(result.descriptions[0]).toBe(
      'Half or more of its finished messages in the last 24 hours failed or went undelivered.',
    );
    expect(t.violations()).toEqual([]);
  });

  it('raises the score of a number whose verification codes go unchecked, lowers it once one is checked', async () => {
    const to = '+14155556677';
    for (let i = 0; i < 3; i++) {
      const { response } = await t.account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' } });
      expect(response.status).toBe(201);
    }
    const pumped = await lookup(to);
    expect(pumped.reasons).toEqual([
      ['unverified_otp_pattern', 40],
      ['not_held_on_platform', 5],
    ]);
    expect(pumped.score).toBe(45);
    expect(pumped.descriptions[0]).toBe(
      'Several verification codes went to it in the last 24 hours and none was checked correctly ' +
        '(SMS pumping pattern).',
    );

    const { data: delivered } = await t.account.client.GET('/v1/sandbox/verification-codes/{to}', {
      params: { path: { to } },
    });
    const { data: checked } = await t.account.client.POST('/v1/verify/check', { body: { to, code: delivered!.code } });
    expect(checked!.status).toBe('approved');
    expect(await lookup(to)).toMatchObject({ score: 5, reasons: [['not_held_on_platform', 5]] });
    expect(t.violations()).toEqual([]);
  });

  it('gives a batch the same platform signals as single lookups', async () => {
    const quiet = await provision();
    const busy = await provision();
    for (const to of recipients(30)) await send(busy.phoneNumber, to);
    const inputs = [busy.phoneNumber, quiet.phoneNumber, '+14155559999', busy.phoneNumber];
    const { data } = await t.account.client.POST('/v1/lookups/batch', { body: { phone_numbers: inputs } });
    const batchReasons = data!.data.map((item) => item.result!.spam_reasons.map((r) => r.reason));
    expect(batchReasons).toEqual([
      ['many_distinct_recipients', 'held_on_platform'],
      ['held_on_platform'],
      ['not_held_on_platform'],
      ['many_distinct_recipients', 'held_on_platform'],
    ]);
    for (const [i, input] of inputs.entries())
      expect(data!.data[i].result!.spam_reasons.map((r) => [r.reason, r.weight])).toEqual(
        (await lookup(input)).reasons,
      );
    expect(t.violations()).toEqual([]);
  });

  it("gives no reason with a count of another account's traffic", async () => {
    const { phoneNumber } = await provision();
    // 57 messages to 31 distinct numbers, all from this test's account; another account looks the number up.
    for (const to of [...recipients(31), ...recipients(26)]) await send(phoneNumber, to);
    const other = await t.newAccount('other');
    const { data, response } = await other.client.GET('/v1/lookups/phone-numbers/{number}', {
      params: { path: { number: phoneNumber } },
    });
    expect(response.status).toBe(200);
    expect(data!.spam_reasons.map((r) => [r.reason, r.weight])).toEqual([
      ['high_outbound_volume', 25],
      ['many_distinct_recipients', 25],
      ['held_on_platform', -10],
    ]);
    expect(data!.spam_score).toBe(40);
    for (const { description } of data!.spam_reasons) expect(description).not.toMatch(/\d/);
    expect(t.violations()).toEqual([]);
  });
});
