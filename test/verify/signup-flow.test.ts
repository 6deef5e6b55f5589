// The happy paths an app's sign-up flow takes, through `prism proxy --errors`: every request and response must
// match the spec (zero violations).
import { describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { ENGINES, useTestServer } from '../support/server.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode } from './flow.js';

describe.each(ENGINES)('verification sign-up flow under the contract proxy (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_VERIFY, contract: true });

  it('completes a sign-up: send by SMS, read the code from the sandbox, check it, approved', async () => {
    const to = freshNumber();
    const sent = await sendCode(t.account.client, { to, channel: 'sms' });
    expect(sent).toMatchObject({ to, channel: 'sms', status: 'pending', valid: false, locale: 'en', code_length: 6 });
    expect(sent.sid).toMatch(/^VE[0-9a-f]{32}$/);

    const delivered = await deliveredCode(t.account.client, to);
    expect(delivered).toMatchObject({ to, verification_sid: sent.sid, channel: 'sms' });
    expect(delivered.code).toMatch(/^[0-9]{6}$/);
    expect(delivered.text).toBe(`Your verification code is ${delivered.code}. Do not share it with anyone.`);

    const { data: checked } = await check(t.account.client, { to, code: delivered.code });
    expect(checked).toMatchObject({ sid: sent.sid, status: 'approved', valid: true });

    const { data: fetched } = await t.account.client.GET('/v1/verify/{sid}', { params: { path: { sid: sent.sid } } });
    expect(fetched).toMatchObject({ sid: sent.sid, status: 'approved', valid: true });
    expect(t.violations()).toEqual([]);
  });

  it('delivers by voice as a call that speaks the code digit by digit, and by WhatsApp', async () => {
    const voiceTo = freshNumber();
    const voice = await sendCode(t.account.client, { to: voiceTo, channel: 'voice', locale: 'de', code_length: 4 });
    const spoken = await deliveredCode(t.account.client, voiceTo);
    expect(spoken.channel).toBe('voice');
    expect(spoken.call_sid).toMatch(/^CA[0-9a-f]{32}$/);
    const digits = spoken.code.split('').join(', ');
    expect(spoken.text).toBe(`Ihr Bestätigungscode lautet ${digits}. Ich wiederhole, Ihr Code lautet ${digits}.`);
    expect((await check(t.account.client, { verification_sid: voice.sid, code: spoken.code })).data?.status).toBe(
      'approved',
    );

    const waTo = freshNumber();
    const wa = await sendCode(t.account.client, { to: waTo, channel: 'whatsapp', locale: 'pt-BR' });
    const message = await deliveredCode(t.account.client, waTo);
    expect(message).toMatchObject({ channel: 'whatsapp', verification_sid: wa.sid });
    expect(message.text).toBe(`Seu código de verificação é ${message.code}. Não compartilhe com ninguém.`);
    expect((await check(t.account.client, { to: waTo, code: message.code })).data?.status).toBe('approved');
    expect(t.violations()).toEqual([]);
  });

  it('takes form-encoded sends and checks, with numbers given as text', async () => {
    const form = createTelephonyClient({ baseUrl: t.url, apiKey: t.account.apiKey, encoding: 'form' });
    const to = freshNumber();
    const sent = await sendCode(form, {
      to,
      channel: 'sms',
      code_length: 8,
      valid_for: 120,
      custom_message: 'Acme: {code} is your login code',
    });
    expect(sent).toMatchObject({ code_length: 8, status: 'pending' });
    expect(Date.parse(sent.date_expires) - Date.parse(sent.date_created)).toBe(120_000);
    const delivered = await deliveredCode(form, to);
    expect(delivered.text).toBe(`Acme: ${delivered.code} is your login code`);
    expect((await check(form, { verification_sid: sent.sid, code: delivered.code })).data?.valid).toBe(true);
    expect(t.violations()).toEqual([]);
  });

  it('cancels a pending verification; wrong codes answer valid false; the account setting round-trips', async () => {
    const to = freshNumber();
    const sent = await sendCode(t.account.client, { to, channel: 'sms' });
    const wrong = await check(t.account.client, { to, code: '0000000' });
    expect(wrong.data).toMatchObject({ status: 'pending', valid: false });
    const { data: canceled } = await t.account.client.POST('/v1/verify/{sid}', {
      params: { path: { sid: sent.sid } },
      body: { status: 'canceled' },
    });
    expect(canceled).toMatchObject({ sid: sent.sid, status: 'canceled', valid: false });

    const { data: updated } = await t.account.client.POST('/v1/account', {
      body: { verify_callback_url: 'https://app.example.com/verify' },
    });
    expect(updated).toMatchObject({ sid: t.account.sid, verify_callback_url: 'https://app.example.com/verify' });
    const { data: fetched } = await t.account.client.GET('/v1/account');
    expect(fetched?.verify_callback_url).toBe('https://app.example.com/verify');
    expect(t.violations()).toEqual([]);
  });
});
