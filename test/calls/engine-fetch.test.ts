// Instructions fetched from a call's url when it is answered: Twilio's parameters (a form for POST, the query for
// GET); a fetch that fails or answers something that is not instructions ends the call `failed` with the reason.
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type TestAccount, useTestServer } from '../support/server.js';
import { accountWithNumber } from '../support/numbers.js';
import { useReceiver } from '../support/webhook-receiver.js';
import { waitUntil } from '../support/wait.js';
import { FAST_CALLS, eventsOf, finalCall, sayThenHangup } from './support.js';
import { verifyInstructionsRequest, WebhookVerificationError } from '../../client/index.js';

describe.each(ENGINES)('call engine: instructions fetched from url (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_CALLS });
  const receiver = useReceiver();
  let account: TestAccount;
  let from: string;
  beforeAll(async () => {
    ({ account, from } = await accountWithNumber(t));
    receiver.answer = (request) => {
      if (request.path.startsWith('/twiml')) return { status: 200, contentType: 'text/xml', body: sayThenHangup() };
      if (request.path.startsWith('/garbage'))
        return { status: 200, contentType: 'text/xml', body: '<Response><Dance/>' };
      if (request.path.startsWith('/down')) return { status: 503 };
      return { status: 200 };
    };
  });

  const call = async (path: string, method: 'GET' | 'POST' = 'POST') => {
    const { data } = await account.client.POST('/v1/calls', {
      body: { from, to: '+14155550123', url: `${receiver.url}${path}`, method, status_callback: `${receiver.url}/s` },
    });
    return data!.sid;
  };

  it('POSTs the call parameters as a form and runs the instructions answered', async () => {
    const sid = await call(`/twiml/post`);
    expect(await finalCall(account, sid)).toMatchObject({ status: 'completed', error_code: null });
    const fetched = receiver.received.find((w) => w.path === '/twiml/post')!;
    expect(fetched.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(fetched.body))).toEqual({
      CallSid: sid,
      AccountSid: account.sid,
      From: from,
      To: '+14155550123',
      CallStatus: 'in-progress',
      Direction: 'outbound-api',
      ApiVersion: '2010-04-01',
    });
  });

  it('sends the parameters as the query with GET', async () => {
    const sid = await call('/twiml/get', 'GET');
    expect(await finalCall(account, sid)).toMatchObject({ status: 'completed' });
    const fetched = await waitUntil(async () => receiver.received.find((w) => w.path.startsWith('/twiml/get?')));
    expect(new URLSearchParams(fetched.path.split('?')[1]).get('CallSid')).toBe(sid);
  });

  it("signs each fetch so that the client's verifyInstructionsRequest checks it and reads its parameters", async () => {
    const posted = await call('/twiml/signed-post');
    // A fragment is not sent, so not signed either: the URL the receiver sees is the one signed.
    const got = await call('/twiml/signed-get?a=1#part', 'GET');
    await finalCall(account, posted);
    await finalCall(account, got);
    const post = receiver.received.find((w) => w.path === '/twiml/signed-post')!;
    const get = receiver.received.find((w) => w.path.startsWith('/twiml/signed-get?'))!;
    const secret = account.webhookSecret;
    const params = await verifyInstructionsRequest(post.body, post.headers, secret);
    expect(params).toMatchObject({ CallSid: posted, From: from, CallStatus: 'in-progress' });
    // A GET is signed over its whole URL, query included.
    const fromUrl = await verifyInstructionsRequest(`${receiver.url}${get.path}`, get.headers, secret);
    expect(fromUrl).toMatchObject({ a: '1', CallSid: got, From: from, To: '+14155550123' });
    await expect(
      verifyInstructionsRequest(post.body.replace(posted, 'CAforged'), post.headers, secret),
    ).rejects.toThrow(WebhookVerificationError);
    await expect(verifyInstructionsRequest(`${receiver.url}/other`, get.headers, secret)).rejects.toThrow(
      'no signature matches the secret',
    );
  });

  it.each([
    ['/down', 'instructions_fetch_failed'],
    ['/garbage', 'invalid_instructions'],
  ])('ends a call whose url %s answers no instructions failed (%s), with one final event', async (path, code) => {
    const sid = await call(path);
    const final = await finalCall(account, sid);
    expect(final).toMatchObject({ status: 'failed', error_code: code });
    expect(final.error_message).toBeTruthy();
    expect(await eventsOf(receiver, sid)).toEqual(['call.initiated', 'call.ringing', 'call.answered', 'call.failed']);
    const failed = receiver.received.find((w) => w.json?.type === 'call.failed' && w.json.data.sid === sid)!;
    expect(failed.json.data).toMatchObject({ error_code: code, error_message: final.error_message });
  });
});
