// A Twilio voice app pointed at this API: a loopback instruction server answers the digits-pressing callee with a
// Gather, then a Record, then a Hangup; each request carries Twilio's parameters, signed with the account's secret;
// the recordings that result are real WAV files that sound like the call.
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { downloadRecording } from '../../client/index.js';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { type ReceivedWebhook, useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { decodeDtmf } from '../support/goertzel.js';
import { readWav } from '../support/wav.js';
import { FAST_CALLS, finalCall } from './support.js';

const PRESSER = '+15005550008';
const xml = (body: string) => ({ status: 200, contentType: 'text/xml', body: `<Response>${body}</Response>` });

/** The app's parameters: the form for POST, the query for GET. */
function paramsOf(request: ReceivedWebhook): Record<string, string> {
  const query = request.path.split('?')[1] ?? '';
  return Object.fromEntries(new URLSearchParams(request.body || query));
}

describe.each(ENGINES)('a Twilio voice app end to end (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const app = useReceiver();
  const events = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => {
    ({ account, from } = await accountWithNumber(t));
    app.answer = (request) => {
      const path = request.path.split('?')[0];
      const method = path.endsWith('/get') ? ' method="GET"' : '';
      if (path.startsWith('/voice')) return xml(`<Gather numDigits="4" action="/gathered"${method}/>`);
      if (path === '/gathered') return xml('<Record action="/recorded" maxLength="5"/>');
      if (path === '/recorded') return xml('<Hangup/>');
      return xml('<Hangup/>');
    };
  });

  const place = async (body: { url: string; method: 'GET' | 'POST' } | { twiml: string; record: boolean }) => {
    const { data, error } = await account.client.POST('/v1/calls', {
      body: { from, to: PRESSER, status_callback: `${events.url}/events`, ...body },
    });
    if (!data) throw new Error(JSON.stringify(error));
    return data.sid;
  };
  const requestTo = (path: string, sid: string) =>
    waitUntil(async () => app.received.find((r) => r.path.split('?')[0] === path && paramsOf(r).CallSid === sid));
  /** The call's recording (the one named, else its only one) once `completed`. */
  const completedRecording = (sid: string, recordingSid?: string) =>
    waitUntil(async () => {
      const { data } = await account.client.GET('/v1/calls/{sid}/recordings', { params: { path: { sid } } });
      const recording = data?.data.find((r) => !recordingSid || r.sid === recordingSid);
      return recording?.status === 'completed' ? recording : undefined;
    });
  const verifier = () => new Webhook(account.webhookSecret);

  it("POSTs Twilio's parameters, signed, to Gather's and Record's actions; Record gives a WAV", async () => {
    const sid = await place({ url: `${app.url}/voice`, method: 'POST' });
    expect(await finalCall(account, sid)).toMatchObject({ status: 'completed', error_code: null });

    const gathered = await requestTo('/gathered', sid);
    expect(gathered.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(paramsOf(gathered)).toMatchObject({
      CallSid: sid,
      AccountSid: account.sid,
      From: from,
      To: PRESSER,
      CallStatus: 'in-progress',
      Direction: 'outbound-api',
      Digits: '1234',
    });
    expect(() => verifier().verify(gathered.body, gathered.headers, { jsonParse: false })).not.toThrow();

    const recorded = paramsOf(await requestTo('/recorded', sid));
    expect(recorded).toMatchObject({ CallSid: sid, AccountSid: account.sid });
    expect(recorded.RecordingSid).toMatch(/^RE/);
    expect(recorded.RecordingUrl).toBe(`${t.directUrl}/v1/recordings/${recorded.RecordingSid}/media`);
    expect(Number(recorded.RecordingDuration)).toBeGreaterThanOrEqual(0);

    const recording = await completedRecording(sid, recorded.RecordingSid);
    expect(recording).toMatchObject({ call_sid: sid, duration: Number(recorded.RecordingDuration) });
    const media = await downloadRecording(account.client, recording.sid);
    expect(media.response.status).toBe(200);
    const wav = readWav(Buffer.from(media.data as ArrayBuffer));
    expect(wav).toMatchObject({ channels: 1, sampleRate: 8000 });
    expect(Math.abs(wav.durationMs / 1000 - recording.duration!)).toBeLessThanOrEqual(1);

    const completed = await waitUntil(async () =>
      events.received.find((w) => w.json?.type === 'recording.completed' && w.json.data.sid === recording.sid),
    );
    expect(completed.json.data).toMatchObject({ call_sid: sid, status: 'completed', duration: recording.duration });
    expect(() => verifier().verify(completed.body, completed.headers)).not.toThrow();
  });

  it('sends the parameters as the query with GET, to the url and to a Gather action with method GET', async () => {
    const sid = await place({ url: `${app.url}/voice/get`, method: 'GET' });
    expect((await finalCall(account, sid)).status).toBe('completed');
    const voice = await requestTo('/voice/get', sid);
    expect(voice.body).toBe('');
    expect(paramsOf(voice)).toMatchObject({ CallSid: sid, AccountSid: account.sid, From: from, To: PRESSER });
    // A GET is signed over its full URL, query included (a POST over its form body).
    expect(() => verifier().verify(`${app.url}${voice.path}`, voice.headers, { jsonParse: false })).not.toThrow();
    expect(() => verifier().verify('', voice.headers, { jsonParse: false })).toThrow(/signature/);
    const gathered = await requestTo('/gathered', sid);
    expect(gathered.body).toBe('');
    expect(paramsOf(gathered)).toMatchObject({ CallSid: sid, Digits: '1234', CallStatus: 'in-progress' });
  });

  it('records the whole call with record: true; a Goertzel decode of its WAV finds the digits pressed', async () => {
    // Gather's default finishOnKey is #: the callee's 1234# are all pressed, then the call hangs up.
    const sid = await place({ twiml: '<Response><Gather/><Hangup/></Response>', record: true });
    expect((await finalCall(account, sid)).status).toBe('completed');
    const recording = await completedRecording(sid);
    expect(recording.source).toBe('outbound_api');
    const media = await downloadRecording(account.client, recording.sid);
    const wav = readWav(Buffer.from(media.data as ArrayBuffer));
    expect(Math.abs(wav.durationMs / 1000 - recording.duration!)).toBeLessThanOrEqual(1);
    expect(decodeDtmf(wav.samples[0])).toBe('1234#');
  });
});
