// Verification by voice through the call engine: the code is spoken by a recorded call leg (Say, Pause, Say,
// Hangup) of purpose `verification`, which the account never sees (calls, recordings, webhooks), and whose failure
// to get through (busy, no answer, no such number) fails the verification.
import { beforeEach, describe, expect, it } from 'vitest';
import { ENGINES, useTestServer, type UsedTestServer } from '../support/server.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { speechMs } from '../../server/calls/audio/durations.js';
import { renderWav, wavDurationMs } from '../../server/calls/audio/render.js';
import type { Segment } from '../../server/calls/audio/timeline.js';
import { VERIFICATION_CALLER } from '../../server/calls/engine/verification-calls.js';
import { FAST_VERIFY, check, deliveredCode, freshNumber, sendCode, waitForVerification } from './flow.js';

const PAUSE_MS = 1000;
const HEADER_BYTES = 44;

/** The verification leg placed to `to` for the account, once it has ended. */
function endedLeg(t: UsedTestServer, to: string) {
  const db = t.server.services.store.db;
  return waitUntil(
    () =>
      db
        .selectFrom('calls')
        .selectAll()
        .where('account_sid', '=', t.account.sid)
        .where('to_number', '=', to)
        .where('purpose', '=', 'verification')
        .where('status', 'not in', ['queued', 'ringing', 'in-progress'])
        .executeTakeFirst(),
    20_000,
    `the verification call to ${to} to end`,
  );
}

function renderedRecording(t: UsedTestServer, callSid: string) {
  const db = t.server.services.store.db;
  return waitUntil(
    () =>
      db
        .selectFrom('recordings')
        .selectAll()
        .where('call_sid', '=', callSid)
        .where('status', '!=', 'processing')
        .executeTakeFirst(),
    20_000,
    `the recording of ${callSid}`,
  );
}

/**
 * The call lasts the two Says and the pause, plus the lag of the job that hangs it up (call time at 20×), and its
 * audio starts, sample for sample, with the speech of `text`, a second of silence and the speech of `text` again.
 */
function expectSpokenTwice(audio: Buffer, text: string): void {
  const sayMs = speechMs(text);
  const spokenMs = 2 * sayMs + PAUSE_MS;
  expect(audio.subarray(0, 4).toString()).toBe('RIFF');
  expect(wavDurationMs(audio)).toBeGreaterThanOrEqual(spokenMs);
  expect(wavDurationMs(audio)).toBeLessThan(spokenMs + 10_000);
  const speech = (atMs: number): Segment => ({ atMs, ms: sayMs, side: 'platform', sound: { kind: 'speech', text } });
  const expected = renderWav([speech(0), speech(sayMs + PAUSE_MS)], 0, spokenMs, 1);
  expect(audio.subarray(HEADER_BYTES, expected.length).equals(expected.subarray(HEADER_BYTES))).toBe(true);
}

describe.each(ENGINES)('verification by voice (%s)', (engine) => {
  // 20× speed: the call's few seconds of speech play in well under a second, with the job queue's lag small.
  const t = useTestServer({ engine, env: { ...FAST_VERIFY, SANDBOX_CALL_SPEED: '20' } });
  const receiver = useReceiver();
  beforeEach(async () => {
    const { response } = await t.account.client.POST('/v1/account', { body: { verify_callback_url: receiver.url } });
    expect(response.status).toBe(200);
  });

  it('places a recorded call that completes, whose audio is the text spoken twice with a pause between', async () => {
    const to = freshNumber();
    await sendCode(t.account.client, { to, channel: 'voice', code_length: 4 });
    const { text, call_sid } = await deliveredCode(t.account.client, to);

    const leg = await endedLeg(t, to);
    expect(call_sid).toBe(leg.sid);
    expect(leg).toMatchObject({
      status: 'completed',
      from_number: VERIFICATION_CALLER,
      direction: 'outbound-api',
      record: 1,
      status_callback: null,
    });
    const recording = await renderedRecording(t, leg.sid);
    expect(recording).toMatchObject({ status: 'completed', account_sid: t.account.sid, source: 'outbound_api' });

    expectSpokenTwice(Buffer.from(recording.audio!), text);
  });

  it('speaks a custom message with XML special characters as written', async () => {
    const to = freshNumber();
    const custom_message = 'Acme & Sons <login>: {code}';
    await sendCode(t.account.client, { to, channel: 'voice', custom_message });
    const { text, code } = await deliveredCode(t.account.client, to);
    expect(text).toBe(`Acme & Sons <login>: ${code.split('').join(', ')}`);
    const leg = await endedLeg(t, to);
    expect(leg.status).toBe('completed');
    expectSpokenTwice(Buffer.from((await renderedRecording(t, leg.sid)).audio!), text);
  });

  it('lets the account hear the call through the sandbox, and no other account', async () => {
    const to = freshNumber();
    await sendCode(t.account.client, { to, channel: 'voice' });
    const { call_sid } = await deliveredCode(t.account.client, to);
    const recording = await renderedRecording(t, call_sid!);
    const path = { params: { path: { sid: call_sid! } }, parseAs: 'arrayBuffer' } as const;
    const heard = await t.account.client.GET('/v1/sandbox/verification-calls/{sid}/recording', path);
    expect(heard.response.status).toBe(200);
    expect(heard.response.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(heard.data!).equals(Buffer.from(recording.audio!))).toBe(true);

    const other = await t.newAccount('other');
    const theirs = await other.client.GET('/v1/sandbox/verification-calls/{sid}/recording', path);
    expect([theirs.response.status, (theirs.error as { code?: string })?.code]).toEqual([404, 'not_found']);
  });

  it('never shows the call, its recording or their events to the account', async () => {
    const to = freshNumber();
    const sent = await sendCode(t.account.client, { to, channel: 'voice' });
    const { code, text } = await deliveredCode(t.account.client, to);
    const leg = await endedLeg(t, to);
    const recording = await renderedRecording(t, leg.sid);
    expect((await check(t.account.client, { to, code })).data?.status).toBe('approved');
    await receiver.waitFor((all) =>
      all.some((w) => w.json?.data?.sid === sent.sid && w.json.type.endsWith('approved')),
    );

    const client = t.account.client;
    const { data: list } = await client.GET('/v1/calls', { params: { query: { to } } });
    expect(list?.data).toEqual([]);
    const fetched = await client.GET('/v1/calls/{sid}', { params: { path: { sid: leg.sid } } });
    expect(fetched.response.status).toBe(404);
    const recordings = await client.GET('/v1/calls/{sid}/recordings', { params: { path: { sid: leg.sid } } });
    expect(recordings.response.status).toBe(404);
    const media = await client.GET('/v1/recordings/{sid}/media', {
      params: { path: { sid: recording.sid } },
      parseAs: 'arrayBuffer',
    });
    expect(media.response.status).toBe(404);

    const bodies = receiver.all.map((w) => w.body);
    expect(receiver.all.map((w) => w.json?.type).filter((type) => !type?.startsWith('verification.'))).toEqual([]);
    for (const secret of [leg.sid, recording.sid, code, text])
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
  });

  it.each([
    ['busy', '+15005550006', 'busy'],
    ['no-answer', '+15005550007', 'no-answer'],
    ['a number that does not exist', '+15005550001', 'failed'],
  ])('fails the verification when the call is %s (%s)', async (_case, to, status) => {
    const sent = await sendCode(t.account.client, { to, channel: 'voice' });
    const leg = await endedLeg(t, to);
    expect(leg.status).toBe(status);
    expect((await waitForVerification(t.account.client, sent.sid, 'failed')).valid).toBe(false);
  });

  it('reaches the handset of a number held on this platform, never its holder', async () => {
    const holder = await t.newAccount('holder');
    const { data: numbers } = await holder.client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 1 } },
    });
    const { data: held } = await holder.client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: numbers!.data[0].phone_number, VoiceUrl: `${receiver.url}/voice` },
    });
    const to = held!.phone_number;
    await sendCode(t.account.client, { to, channel: 'voice' });
    expect((await endedLeg(t, to)).status).toBe('completed');
    const { data: calls } = await holder.client.GET('/v1/calls');
    expect(calls?.data).toEqual([]);
    expect(receiver.all.filter((w) => w.path === '/voice')).toEqual([]);
  });
});
