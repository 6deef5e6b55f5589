// Recordings the engine stores: `processing` with the call's timeline, then rendered into a WAV file (`completed`,
// with its duration) or `failed` past RECORDING_MAX_BYTES, each announced by one event to the right callback.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, finalCall, sayThenHangup } from './support.js';

describe.each(ENGINES)('call engine: recordings (%s)', (engine) => {
  // 400 000 bytes hold 25 s of 8 kHz 16-bit mono audio.
  const t = useTestServer({ engine, env: { ...FAST_CALLS, RECORDING_MAX_BYTES: '400000' } });
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => ({ account, from } = await accountWithNumber(t)));

  const recordedCall = async (text: string, callbacks: Record<string, string>) => {
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', twiml: sayThenHangup(text), record: true, ...callbacks },
    });
    await finalCall(account, data!.sid);
    const db = t.server.services.store.db;
    return waitUntil(() =>
      db
        .selectFrom('recordings')
        .selectAll()
        .where('call_sid', '=', data!.sid)
        .where('status', '!=', 'processing')
        .executeTakeFirst(),
    );
  };

  it('renders the whole call into a WAV file and sends recording.completed to recording_status_callback', async () => {
    // "Hello there": 770 ms of speech.
    const recording = await recordedCall('Hello there', {
      status_callback: `${receiver.url}/calls`,
      recording_status_callback: `${receiver.url}/recordings`,
    });
    expect(recording).toMatchObject({ status: 'completed', source: 'outbound_api', channels: 1, segments: null });
    // The hang-up comes when the job queue runs it: some ms of real time late, more call time at 50× speed.
    expect(Number(recording.duration)).toBeGreaterThanOrEqual(1);
    expect(Number(recording.duration)).toBeLessThan(20);
    expect(Number(recording.price)).toBe(0);
    const audio = Buffer.from(recording.audio!);
    expect(audio.subarray(0, 4).toString()).toBe('RIFF');
    expect(audio.subarray(8, 12).toString()).toBe('WAVE');
    const event = await waitUntil(async () => receiver.received.find((w) => w.json?.data?.sid === recording.sid));
    expect(event.path).toBe('/recordings');
    expect(event.json).toMatchObject({
      type: 'recording.completed',
      data: {
        sid: recording.sid,
        call_sid: recording.call_sid,
        status: 'completed',
        duration: Number(recording.duration),
      },
    });
  });

  it('fails a recording larger than RECORDING_MAX_BYTES (recording.failed to the status_callback)', async () => {
    // 900 characters of speech: 63 s.
    const recording = await recordedCall('d'.repeat(900), { status_callback: `${receiver.url}/calls` });
    expect(recording).toMatchObject({ status: 'failed', error_code: 'recording_too_large', audio: null });
    const event = await waitUntil(async () => receiver.received.find((w) => w.json?.data?.sid === recording.sid));
    expect(event.path).toBe('/calls');
    expect(event.json).toMatchObject({ type: 'recording.failed', data: { status: 'failed' } });
  });
});
