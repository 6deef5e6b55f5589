// POST /v1/verify/send: what a send creates, re-sends of a pending verification, the send limits, the fraud
// guard, templates per locale and what happens when the network cannot deliver the code.
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { TestClock } from '../support/clock.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode, waitForVerification } from './flow.js';

describe.each(ENGINES)('sending verification codes (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_VERIFY });

  it('creates a pending verification with its expiry, send attempts and the line type of the number', async () => {
    const before = Date.now();
    const sent = await sendCode(t.account.client, { to: '+4915112345678', channel: 'sms', valid_for: 900 });
    expect(sent).toMatchObject({
      account_sid: t.account.sid,
      to: '+4915112345678',
      channel: 'sms',
      status: 'pending',
      valid: false,
      locale: 'en',
      code_length: 6,
      lookup: { line_type: 'mobile' },
    });
    expect(Date.parse(sent.date_created)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(sent.date_expires) - Date.parse(sent.date_created)).toBe(900_000);
    expect(sent.send_code_attempts).toEqual([{ time: sent.date_created, channel: 'sms' }]);
  });

  it('re-sends the same code on the asked channel while pending, as the same verification', async () => {
    const to = freshNumber();
    const first = await sendCode(t.account.client, { to, channel: 'sms' });
    const firstCode = (await deliveredCode(t.account.client, to)).code;
    const again = await sendCode(t.account.client, { to, channel: 'voice' });
    const spoken = await deliveredCode(t.account.client, to);
    expect(again.sid).toBe(first.sid);
    expect(again.channel).toBe('voice');
    expect(again.send_code_attempts.map((a) => a.channel)).toEqual(['sms', 'voice']);
    expect(again.date_expires).toBe(first.date_expires);
    expect(spoken).toMatchObject({ code: firstCode, channel: 'voice', verification_sid: first.sid });
    expect((await check(t.account.client, { to, code: firstCode })).data?.status).toBe('approved');

    const fresh = await sendCode(t.account.client, { to, channel: 'sms' });
    expect(fresh.sid).not.toBe(first.sid);
    expect(fresh.send_code_attempts).toHaveLength(1);
  });

  it('answers 429 max_send_attempts_reached with Retry-After on the 6th send to a number in 10 minutes', async () => {
    const to = freshNumber();
    for (let i = 0; i < 5; i++) await sendCode(t.account.client, { to, channel: i % 2 ? 'voice' : 'sms' });
    const { error, response } = await t.account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' } });
    expect(response.status).toBe(429);
    expect(error?.code).toBe('max_send_attempts_reached');
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
    // Another account's sends to the same number are its own.
    const other = await t.newAccount('other');
    expect((await sendCode(other.client, { to, channel: 'sms' })).status).toBe('pending');
  });

  it.each([
    ['a premium-rate number', '+19005550123'],
    ['a UK premium-rate number', '+448451234567'],
    ['a shared-cost number', '+4918012345678'],
    ['an invalid number', '+4412345'],
  ])('refuses %s with 422 destination_blocked and sends nothing', async (_case, to) => {
    const { error, response } = await t.account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' } });
    expect(response.status).toBe(422);
    expect(error?.code).toBe('destination_blocked');
    expect(
      (await t.account.client.GET('/v1/sandbox/verification-codes/{to}', { params: { path: { to } } })).response.status,
    ).toBe(404);
  });

  it.each([
    ['en', 'Your verification code is'],
    ['es', 'Tu código de verificación es'],
    ['fr', 'Votre code de vérification est'],
    ['de', 'Ihr Bestätigungscode lautet'],
    ['it', 'Il tuo codice di verifica è'],
    ['pt', 'O seu código de verificação é'],
    ['pt-BR', 'Seu código de verificação é'],
    ['nl', 'Uw verificatiecode is'],
    ['pl', 'Twój kod weryfikacyjny to'],
    ['tr', 'Doğrulama kodunuz'],
    ['ja', '認証コードは'],
    ['zh', '您的验证码是'],
    ['ko', '인증 코드는'],
    ['ru', 'Ваш код подтверждения'],
    ['ar', 'رمز التحقق الخاص بك هو'],
    ['hi', 'आपका सत्यापन कोड'],
    ['sv', 'Din verifieringskod är'],
  ] as const)('writes the text in locale %s', async (locale, phrase) => {
    const to = freshNumber();
    const sent = await sendCode(t.account.client, { to, channel: 'sms', locale });
    expect(sent.locale).toBe(locale);
    const delivered = await deliveredCode(t.account.client, to);
    expect(delivered.text.startsWith(phrase)).toBe(true);
    expect(delivered.text).toContain(delivered.code);
  });

  it.each([
    ['sms', '+15005550001', 'invalid_destination'],
    ['whatsapp', '+15005550003', 'carrier_rejected'],
    ['sms', '+15005550002', 'unreachable_destination'],
    ['voice', '+15005550006', 'busy'],
    ['voice', '+15005550007', 'no_answer'],
  ] as const)('ends the verification failed when %s to %s cannot be delivered (%s)', async (channel, to, _reason) => {
    const sent = await sendCode(t.account.client, { to, channel });
    expect(sent.status).toBe('pending');
    const failed = await waitForVerification(t.account.client, sent.sid, 'failed');
    expect(failed.valid).toBe(false);
    expect(
      (await t.account.client.GET('/v1/sandbox/verification-codes/{to}', { params: { path: { to } } })).response.status,
    ).toBe(404);
    // A failed verification is over: the next send starts a new one.
    const next = await sendCode(t.account.client, { to, channel: 'sms' });
    expect(next.sid).not.toBe(sent.sid);
  });

  it('replays a send with the same Idempotency-Key without sending the code again', async () => {
    const to = freshNumber();
    const params = { header: { 'Idempotency-Key': `signup-${to}` } };
    const first = await t.account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' }, params });
    const replay = await t.account.client.POST('/v1/verify/send', { body: { to, channel: 'sms' }, params });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data?.sid).toBe(first.data?.sid);
    const { data } = await t.account.client.GET('/v1/verify/{sid}', { params: { path: { sid: first.data!.sid } } });
    expect(data?.send_code_attempts).toHaveLength(1);
  });
});

describe.each(ENGINES)('the hourly cap on verification sends per account (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_VERIFY, VERIFY_MAX_SENDS_PER_HOUR: '3' } });

  it('answers 429 rate_limited with Retry-After once VERIFY_MAX_SENDS_PER_HOUR codes went out in an hour', async () => {
    for (let i = 0; i < 3; i++) await sendCode(t.account.client, { to: freshNumber(), channel: 'sms' });
    const { error, response } = await t.account.client.POST('/v1/verify/send', {
      body: { to: freshNumber(), channel: 'sms' },
    });
    expect(response.status).toBe(429);
    expect(error?.code).toBe('rate_limited');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(3500);
    // The cap is per account.
    const other = await t.newAccount();
    expect((await sendCode(other.client, { to: freshNumber(), channel: 'sms' })).status).toBe('pending');
  });
});

describe.each(ENGINES)('the hourly cap as sends age out of the hour (%s)', (engine) => {
  // Stopped: the Retry-After values below are exact only if no real second passes between the sends and the refusals.
  const clock = new TestClock({ stopped: true });
  const t = useTestServer({ engine, env: { ...FAST_VERIFY, VERIFY_MAX_SENDS_PER_HOUR: '3' }, clock });
  const refusal = async () => {
    const { response } = await t.account.client.POST('/v1/verify/send', {
      body: { to: freshNumber(), channel: 'sms' },
    });
    expect(response.status).toBe(429);
    return Number(response.headers.get('retry-after'));
  };

  it('counts exactly the sends of the last hour, re-sends too, and frees a place as each leaves it', async () => {
    const first = freshNumber();
    await sendCode(t.account.client, { to: first, channel: 'sms' });
    await sendCode(t.account.client, { to: first, channel: 'sms' }); // a re-send counts as a send
    clock.advance(40 * 60_000);
    await sendCode(t.account.client, { to: freshNumber(), channel: 'sms' });
    expect(await refusal()).toBe(20 * 60);
    clock.advance(20 * 60_000 - 1000);
    expect(await refusal()).toBe(1);
    clock.advance(1000);
    // The two first sends are an hour old: two places free, not three.
    await sendCode(t.account.client, { to: freshNumber(), channel: 'sms' });
    await sendCode(t.account.client, { to: freshNumber(), channel: 'sms' });
    expect(await refusal()).toBe(40 * 60);
  });
});
