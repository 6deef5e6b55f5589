// Fetching a call's instructions from a real loopback HTTP server: what arrives (form body or query, signed as our
// webhooks are), and how each kind of answer turns into instructions or a failure with a readable reason.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { fetchInstructions, unanswered, type InstructionRequest } from '../../server/calls/twiml/fetch.js';
import type { RequestResult } from '../../server/webhooks/deliver.js';
import { useReceiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const PARAMS = {
  CallSid: 'CA0123',
  From: '+14155550100',
  To: '+14155550199',
  CallStatus: 'in-progress',
  SpeechResult: 'yes & no = maybe',
};
const TWIML = '<Response><Say>Hello</Say><Gather action="/gathered"/></Response>';

describe('fetching instructions', () => {
  const receiver = useReceiver();
  const fetchFrom = (path: string, extra: Partial<InstructionRequest> = {}) =>
    fetchInstructions({
      url: `${receiver.url}${path}`,
      method: 'POST',
      params: PARAMS,
      secret: [SECRET],
      webhookId: `msg_${randomBytes(8).toString('hex')}`,
      timestamp: Date.now(),
      timeoutMs: 2000,
      privateAddresses: 'loopback',
      ...extra,
    });
  const answering = (status: number, contentType: string, body = '', delayMs = 0) => {
    receiver.answer = () => ({ status, contentType, body, delayMs });
  };
  const requestTo = (path: string) => receiver.all.find((r) => r.path.startsWith(path))!;

  it('POSTs the parameters form-encoded, signed over the body, and parses the document', async () => {
    answering(200, 'text/xml; charset=utf-8', TWIML);
    const result = await fetchFrom('/post/voice.xml');
    const request = requestTo('/post/voice.xml');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual(PARAMS);
    const verifier = new Webhook(SECRET);
    expect(() => verifier.verify(request.body, request.headers, { jsonParse: false })).not.toThrow();
    expect(() => verifier.verify(`${request.body}&x=1`, request.headers, { jsonParse: false })).toThrow(/signature/);
    expect(result).toEqual({
      ok: true,
      instructions: {
        url: `${receiver.url}/post/voice.xml`,
        verbs: [
          { verb: 'Say', text: 'Hello', voice: 'man', language: 'en-US', loop: 1 },
          expect.objectContaining({ verb: 'Gather', action: `${receiver.url}/gathered` }),
        ],
      },
    });
  });

  it('GETs with the parameters added to the query, keeping its own, signed over the full URL', async () => {
    answering(200, 'application/xml', TWIML);
    const result = await fetchFrom('/get/voice?app=7', { method: 'GET' });
    const request = requestTo('/get/voice');
    expect(request.body).toBe('');
    expect(request.headers['content-type']).toBeUndefined();
    const requested = new URL(request.path, receiver.url);
    expect(Object.fromEntries(requested.searchParams)).toEqual({ app: '7', ...PARAMS });
    const verifier = new Webhook(SECRET);
    expect(() => verifier.verify(requested.href, request.headers, { jsonParse: false })).not.toThrow();
    expect(() => verifier.verify('', request.headers, { jsonParse: false })).toThrow(/signature/);
    expect(result).toMatchObject({ ok: true, instructions: { url: `${receiver.url}/get/voice?app=7` } });
  });

  it('a GET whose query is changed no longer matches its signature', async () => {
    answering(200, 'application/xml', TWIML);
    await fetchFrom('/get/signed', { method: 'GET' });
    const request = requestTo('/get/signed');
    const changed = new URL(request.path, receiver.url);
    changed.searchParams.set('CallStatus', 'completed');
    expect(() => new Webhook(SECRET).verify(changed.href, request.headers, { jsonParse: false })).toThrow(/signature/);
  });

  it('parses a document served as text/html', async () => {
    answering(200, 'text/html', TWIML);
    expect(await fetchFrom('/html')).toMatchObject({ ok: true, instructions: { verbs: [{ verb: 'Say' }, {}] } });
  });

  it('says a text/plain answer', async () => {
    answering(200, 'text/plain', '  Thanks for calling.\n');
    expect(await fetchFrom('/plain')).toEqual({
      ok: true,
      instructions: {
        url: `${receiver.url}/plain`,
        verbs: [{ verb: 'Say', text: 'Thanks for calling.', voice: 'man', language: 'en-US', loop: 1 }],
      },
    });
  });

  it('plays an audio answer from its URL, however large', async () => {
    answering(200, 'audio/mpeg', 'x'.repeat(200 * 1024));
    expect(await fetchFrom('/hold.mp3')).toEqual({
      ok: true,
      instructions: {
        url: `${receiver.url}/hold.mp3`,
        verbs: [{ verb: 'Play', url: `${receiver.url}/hold.mp3`, digits: null, loop: 1 }],
      },
    });
  });

  it.each([
    [500, 'text/xml', TWIML, 'answered HTTP 500'],
    [302, 'text/xml', '', 'answered HTTP 302 without a valid Location'],
    [200, 'application/json', '{}', 'answered "application/json", not TwiML (text/xml), text/plain or audio'],
    [200, 'text/xml', `<Response><Say>${'a'.repeat(70 * 1024)}</Say></Response>`, 'answered more than 64 KB'],
  ])('fails on HTTP %i %s', async (status, contentType, body, why) => {
    answering(status, contentType, body);
    const path = `/answer-${status}-${contentType.replace(/\W/g, '')}-${body.length}`;
    expect(await fetchFrom(path)).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage: `POST ${receiver.url}${path} ${why}`,
    });
  });

  it('refuses a document that is not valid TwiML, with the parser reason', async () => {
    answering(200, 'text/xml', '<Response><Dance/></Response>');
    expect(await fetchFrom('/garbage')).toEqual({
      ok: false,
      errorCode: 'invalid_instructions',
      errorMessage:
        `the document from ${receiver.url}/garbage is not valid TwiML: ` +
        '<Dance> is not a supported verb (supported: Say, Play, Pause, Gather, Record, Dial, Redirect, Hangup, Reject)',
    });
    answering(200, 'text/xml', 'Not XML at all');
    expect(await fetchFrom('/not-xml')).toMatchObject({
      errorCode: 'invalid_instructions',
      errorMessage: `the document from ${receiver.url}/not-xml is not valid TwiML: not XML: missing root element`,
    });
  });

  it('refuses an empty text/plain answer', async () => {
    answering(200, 'text/plain', ' ');
    expect(await fetchFrom('/empty')).toEqual({
      ok: false,
      errorCode: 'invalid_instructions',
      errorMessage: `the text from ${receiver.url}/empty must be 1 to 4096 characters to be said, got 0`,
    });
  });

  it('fails when the answer takes longer than the timeout', async () => {
    answering(200, 'text/xml', TWIML, 1500);
    const started = performance.now();
    expect(await fetchFrom('/slow', { timeoutMs: 300 })).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage: `POST ${receiver.url}/slow timed out after 300 ms`,
    });
    expect(performance.now() - started).toBeLessThan(1200);
  });

  it('fails when the body is still arriving at the timeout', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.write('<Response><Say>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trickle`;
    try {
      expect(await fetchFrom('', { url, timeoutMs: 300 })).toEqual({
        ok: false,
        errorCode: 'instructions_fetch_failed',
        errorMessage: `POST ${url} timed out after 300 ms`,
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fails when nothing listens at the URL', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}/voice`;
    expect(await fetchFrom('', { url, method: 'GET' })).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage: `GET ${url} failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('never connects to a URL the address policy refuses', async () => {
    answering(200, 'text/xml', TWIML);
    expect(await fetchFrom('/refused', { privateAddresses: 'none' })).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage: `POST ${receiver.url}/refused refused: the URL must not point at a loopback address (127.0.0.1)`,
    });
    expect(receiver.all.map((r) => r.path)).not.toContain('/refused');
  });

  const redirecting = (routes: Record<string, [number, string]>) => {
    receiver.answer = (request) => {
      const path = new URL(request.path, receiver.url).pathname;
      const route = routes[path];
      if (route) return { status: route[0], headers: { location: route[1] } };
      return { status: 200, contentType: 'text/xml', body: '<Response><Redirect>next</Redirect></Response>' };
    };
  };

  it('follows a 302 after a POST as a GET; relative URLs in the document resolve against the final URL', async () => {
    redirecting({ '/r302/start': [302, '/r302/moved/here'] });
    const result = await fetchFrom('/r302/start');
    const moved = requestTo('/r302/moved/here');
    expect([moved.method, moved.body]).toEqual(['GET', '']);
    expect(() =>
      new Webhook(SECRET).verify(`${receiver.url}${moved.path}`, moved.headers, { jsonParse: false }),
    ).not.toThrow();
    expect(result).toEqual({
      ok: true,
      instructions: {
        url: `${receiver.url}/r302/moved/here`,
        verbs: [{ verb: 'Redirect', url: `${receiver.url}/r302/moved/next`, method: 'POST' }],
      },
    });
  });

  it('repeats the POST and its form on a 307, and switches to GET on a 303', async () => {
    redirecting({ '/r307/a': [307, `${receiver.url}/r307/b`], '/r307/b': [303, '/r307/c'] });
    expect(await fetchFrom('/r307/a')).toMatchObject({ ok: true, instructions: { url: `${receiver.url}/r307/c` } });
    const b = requestTo('/r307/b');
    expect([b.method, Object.fromEntries(new URLSearchParams(b.body))]).toEqual(['POST', PARAMS]);
    expect(requestTo('/r307/c').method).toBe('GET');
  });

  it('fails past 5 redirects', async () => {
    redirecting({ '/loop': [301, '/loop'] });
    expect(await fetchFrom('/loop')).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage: `POST ${receiver.url}/loop redirected more than 5 times`,
    });
    expect(receiver.all.filter((r) => r.path.startsWith('/loop'))).toHaveLength(6);
  });

  it('checks each Location with the URL policy, never connecting to a refused one', async () => {
    redirecting({ '/to-private': [302, 'http://10.0.0.1/voice'] });
    expect(await fetchFrom('/to-private')).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage:
        `POST ${receiver.url}/to-private (redirected to http://10.0.0.1/voice) ` +
        'refused: the URL must not point at a private address (10.0.0.1)',
    });
  });

  it.each([
    ['a UTF-8 byte order mark', 'text/xml', Buffer.from(`\uFEFF${SAY_CAFE}`)],
    ['a UTF-16LE byte order mark', 'text/xml', Buffer.from(`\uFEFF${SAY_CAFE}`, 'utf16le')],
    ['a UTF-16BE byte order mark', 'text/xml', Buffer.from(`\uFEFF${SAY_CAFE}`, 'utf16le').swap16()],
    ['a byte order mark over the charset', 'text/xml; charset=ISO-8859-1', Buffer.from(`\uFEFF${SAY_CAFE}`)],
    ['ISO-8859-1 by the Content-Type', 'text/xml; charset=ISO-8859-1', Buffer.from(SAY_CAFE, 'latin1')],
    [
      'windows-1252 by the XML declaration',
      'application/xml',
      Buffer.from(`<?xml version="1.0" encoding="windows-1252"?>${SAY_CAFE}`, 'latin1'),
    ],
  ])('reads a document with %s', async (_what, contentType, body) => {
    receiver.answer = () => ({ status: 200, contentType, body });
    expect(await fetchFrom('/charset')).toMatchObject({ ok: true, instructions: { verbs: [{ text: 'Café' }] } });
  });

  it('refuses a charset it cannot decode, naming it', async () => {
    answering(200, 'text/xml; charset=x-klingon', TWIML);
    expect(await fetchFrom('/klingon')).toEqual({
      ok: false,
      errorCode: 'invalid_instructions',
      errorMessage:
        `the document from ${receiver.url}/klingon cannot be read: ` + 'its charset "x-klingon" is not supported',
    });
  });
});

const SAY_CAFE = '<Response><Say>Café</Say></Response>';

// Tests may look up no name but localhost (the network guard), so what the account reads of a refused or unresolved
// name is shown on the results the delivery gives for them.
describe('the reason the account reads of a fetch without an answer', () => {
  const what = 'POST http://vm/voice';
  const noAnswer = (error: string, cause: RequestResult['cause']): RequestResult => ({
    ok: false,
    status: null,
    body: '',
    contentType: '',
    error,
    durationMs: 1,
    permanent: cause === 'private-address',
    oversize: false,
    raw: Buffer.alloc(0),
    location: null,
    cause,
  });

  it('names a host that is not public, keeping how it resolved for the log', () => {
    const error = 'refused: vm resolves to 127.0.0.1, a loopback address (WEBHOOK_ALLOW_PRIVATE decides ...)';
    expect(unanswered(noAnswer(error, 'private-address'), what)).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage: `${what} refused: the URL's host is not a public address`,
      detail: error,
    });
  });

  it('names a host that could not be resolved, keeping the resolver’s error for the log', () => {
    const error = 'getaddrinfo ENOTFOUND vm';
    expect(unanswered(noAnswer(error, 'unresolved'), what)).toEqual({
      ok: false,
      errorCode: 'instructions_fetch_failed',
      errorMessage: `${what} failed: the URL's host could not be resolved`,
      detail: error,
    });
  });
});
