// Every field that takes a URL the API will call is refused when it is given (400 url_not_allowed naming the field),
// and nothing is stored. The refused URLs are literals: the server judges them without connecting anywhere.
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { ENGINES, useTestServer, type TestAccount, type UsedTestServer } from '../support/server.js';
import { giveNumber } from '../support/numbers.js';
import { FAST_PIPELINE } from '../support/messaging.js';

interface Holder {
  account: TestAccount;
  number: string;
  numberSid: string;
}

interface UrlField {
  operation: string;
  field: string;
  /** Where in the field the URL goes, when the field is more than a URL (inline TwiML): what the error names. */
  within?: string;
  /** Gives `url` in `field`; answers the status and the error body, if any. */
  give(t: UsedTestServer, h: Holder, url: string): Promise<{ status: number; error: unknown }>;
  /** What the operation would change, read back through the API. */
  state(t: UsedTestServer, h: Holder): Promise<unknown>;
}

const answer = ({ response, error }: { response: Response; error?: unknown }) => ({ status: response.status, error });

const messages = async (_t: UsedTestServer, h: Holder) =>
  (await h.account.client.GET('/v1/messages')).data!.data.map((m) => m.sid);
const numberOf = async (_t: UsedTestServer, h: Holder) =>
  (await h.account.client.GET('/v1/incoming-phone-numbers/{sid}', { params: { path: { sid: h.numberSid } } })).data;
const heldNumbers = async (_t: UsedTestServer, h: Holder) =>
  (await h.account.client.GET('/v1/incoming-phone-numbers')).data!.data.map((n) => n.phone_number);

async function freeNumber(h: Holder): Promise<string> {
  const { data } = await h.account.client.GET('/v1/available-phone-numbers/{country}/Local', {
    params: { path: { country: 'US' }, query: { page_size: 1 } },
  });
  return data!.data[0].phone_number;
}

/** A number's URL field, given when provisioning a number (`creating`) or when updating the holder's number. */
const numberField = (field: 'SmsUrl' | 'VoiceUrl' | 'StatusCallback', creating: boolean): UrlField => ({
  operation: creating ? 'provisionPhoneNumber' : 'updateIncomingPhoneNumber',
  field,
  give: async (_t, h, url) =>
    answer(
      creating
        ? await h.account.client.POST('/v1/incoming-phone-numbers', {
            body: { PhoneNumber: await freeNumber(h), [field]: url },
          })
        : await h.account.client.POST('/v1/incoming-phone-numbers/{sid}', {
            params: { path: { sid: h.numberSid } },
            body: { FriendlyName: 'changed', [field]: url },
          }),
    ),
  state: creating ? heldNumbers : numberOf,
});

type SendBody = components['schemas']['SendMessageRequest'];

const send = (field: string, fill: (url: string) => Partial<SendBody>): UrlField => ({
  operation: 'sendMessage',
  field,
  give: async (_t, h, url) =>
    answer(await h.account.client.POST('/v1/messages', { body: { from: h.number, to: '+14155550123', ...fill(url) } })),
  state: messages,
});

const calls = async (_t: UsedTestServer, h: Holder) =>
  (await h.account.client.GET('/v1/calls')).data!.data.map((c) => c.sid);

const makeCall = (field: 'url' | 'status_callback' | 'recording_status_callback'): UrlField => ({
  operation: 'makeCall',
  field,
  give: async (_t, h, url) =>
    answer(
      await h.account.client.POST('/v1/calls', {
        body: {
          from: h.number,
          to: '+14155550123',
          ...(field === 'url' ? {} : { twiml: '<Response/>' }),
          [field]: url,
        },
      }),
    ),
  state: calls,
});

/** A URL inside inline instructions of a call (`twiml`), refused as the request's own URLs are. */
const inTwiml = (within: string, markup: (url: string) => string): UrlField => ({
  operation: 'makeCall',
  field: 'twiml',
  within,
  give: async (_t, h, url) =>
    answer(
      await h.account.client.POST('/v1/calls', { body: { from: h.number, to: '+14155550123', twiml: markup(url) } }),
    ),
  state: calls,
});

const FIELDS: UrlField[] = [
  send('status_callback', (url) => ({ body: 'x', status_callback: url })),
  send('media_url', (url) => ({ media_url: ['https://cdn.example.com/a.png', url] })),
  {
    operation: 'injectInboundMessage',
    field: 'media_url',
    give: async (_t, h, url) =>
      answer(
        await h.account.client.POST('/v1/sandbox/inbound-messages', {
          body: { from: '+14155550123', to: h.number, media_url: [url] },
        }),
      ),
    state: messages,
  },
  makeCall('url'),
  makeCall('status_callback'),
  makeCall('recording_status_callback'),
  inTwiml('<Redirect> URL', (url) => `<Response><Redirect>${url}</Redirect></Response>`),
  inTwiml('<Play> URL', (url) => `<Response><Play>${url}</Play></Response>`),
  inTwiml('<Gather> action', (url) => `<Response><Gather action="${url}"><Say>PIN?</Say></Gather></Response>`),
  inTwiml('<Gather><Play> URL', (url) => `<Response><Gather><Play>${url}</Play></Gather></Response>`),
  inTwiml('<Record> action', (url) => `<Response><Record action="${url}"/></Response>`),
  inTwiml(
    '<Record> recordingStatusCallback',
    (url) => `<Response><Record recordingStatusCallback="${url}"/></Response>`,
  ),
  inTwiml('<Dial> action', (url) => `<Response><Dial action="${url}">+14155550124</Dial></Response>`),
  ...[true, false].flatMap((creating) =>
    (['SmsUrl', 'VoiceUrl', 'StatusCallback'] as const).map((field) => numberField(field, creating)),
  ),
  {
    operation: 'updateAccount',
    field: 'verify_callback_url',
    give: async (_t, h, url) =>
      answer(await h.account.client.POST('/v1/account', { body: { verify_callback_url: url } })),
    state: async (_t, h) => (await h.account.client.GET('/v1/account')).data,
  },
];

const cases = FIELDS.map((f) => [`${f.operation} ${f.field}${f.within ? ` ${f.within}` : ''}`, f] as const);

async function holder(t: UsedTestServer): Promise<Holder> {
  const account = t.account;
  const number = await giveNumber(t, account);
  const { data } = await account.client.GET('/v1/incoming-phone-numbers');
  return { account, number, numberSid: data!.data.find((n) => n.phone_number === number)!.sid };
}

async function expectRefused(t: UsedTestServer, f: UrlField, url: string, why: RegExp): Promise<void> {
  const h = await holder(t);
  const before = await f.state(t, h);
  const { status, error } = await f.give(t, h, url);
  expect(status).toBe(400);
  expect(error).toMatchObject({
    status: 400,
    code: 'url_not_allowed',
    type: '/problems/url_not_allowed',
    detail: expect.stringMatching(new RegExp(`^${f.field}: `)),
    errors: [{ field: f.field, message: expect.stringMatching(why) }],
  });
  // Inside inline instructions, the message names where the URL is.
  if (f.within) expect((error as { errors: { message: string }[] }).errors[0].message.startsWith(f.within)).toBe(true);
  expect(await f.state(t, h)).toEqual(before);
}

describe.each(ENGINES)('URLs refused when given, default policy of tests: loopback only (%s)', (engine) => {
  const t = useTestServer({ engine, env: FAST_PIPELINE, contract: true });

  it.each(cases)('%s: answers 400 url_not_allowed for a 10.x address and stores nothing', async (_, f) => {
    await expectRefused(t, f, 'http://10.1.2.3/hook', /private address \(10\.1\.2\.3\)/);
  });

  it.each(cases)('%s: accepts a loopback receiver', async (_, f) => {
    const h = await holder(t);
    const { status } = await f.give(t, h, 'http://127.0.0.1:9/hook');
    expect([200, 201]).toContain(status);
  });

  it.each([
    ['http://0xa9.0xfe.0xa9.0xfe/latest/meta-data', /link-local address \(169\.254\.169\.254\)/],
    ['http://167772161/hook', /private address \(10\.0\.0\.1\)/],
    ['http://[::ffff:127.0.0.1]/hook', /IPv4-mapped address of a loopback address/],
    ['http://[fd12:3456::1]/hook', /unique-local address/],
    ['http://0.0.0.0:8080/hook', /unspecified/],
    ['http://user:secret@hooks.example.com/hook', /user name or password/],
  ])('sendMessage status_callback: answers 400 url_not_allowed for %s', async (url, why) => {
    await expectRefused(t, FIELDS[0], url, why);
  });

  it('updateCall twiml: answers 400 url_not_allowed for a <Redirect> to a 10.x address, changing nothing', async () => {
    const h = await holder(t);
    const twiml = '<Response><Pause length="600"/></Response>';
    const made = await h.account.client.POST('/v1/calls', { body: { from: h.number, to: '+14155550123', twiml } });
    const path = { params: { path: { sid: made.data!.sid } } };
    // Answered and paused for 600 s of call time: nothing else changes the call meanwhile.
    await expect
      .poll(async () => (await h.account.client.GET('/v1/calls/{sid}', path)).data!.status, { timeout: 10_000 })
      .toBe('in-progress');
    const before = (await h.account.client.GET('/v1/calls/{sid}', path)).data;
    const { response, error } = await h.account.client.POST('/v1/calls/{sid}', {
      ...path,
      body: { twiml: '<Response><Redirect>http://10.1.2.3/next</Redirect></Response>' },
    });
    expect({ status: response.status, error }).toMatchObject({
      status: 400,
      error: {
        code: 'url_not_allowed',
        errors: [{ field: 'twiml', message: expect.stringMatching(/^<Redirect> URL/) }],
      },
    });
    expect((await h.account.client.GET('/v1/calls/{sid}', path)).data).toEqual(before);
  });

  it('answered within the contract', () => {
    expect(t.violations()).toEqual([]);
  });
});

describe.each(ENGINES)('URLs refused when given, with WEBHOOK_ALLOW_PRIVATE=false (%s)', (engine) => {
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE: 'false' } });

  it.each(cases)('%s: answers 400 url_not_allowed for 127.0.0.1 and stores nothing', async (_, f) => {
    await expectRefused(t, f, 'http://127.0.0.1:9/hook', /loopback address \(127\.0\.0\.1\)/);
  });

  it.each(cases)('%s: answers 400 url_not_allowed for localhost and stores nothing', async (_, f) => {
    await expectRefused(t, f, 'http://localhost:9/hook', /loopback name \(localhost\)/);
  });

  // The account's verify callback is only called when a verification happens, so nothing leaves the machine here.
  it('accepts a public name (names are judged at delivery, by what they resolve to)', async () => {
    const h = await holder(t);
    const { status } = await FIELDS[FIELDS.length - 1].give(t, h, 'https://hooks.example.com/verify');
    expect(status).toBe(200);
  });
});

describe.each(ENGINES)('URLs refused when given, in production whatever the carrier (%s)', (engine) => {
  const production = { NODE_ENV: 'production', CARRIER: 'sandbox', SECRET_KEY: 's'.repeat(48) };
  const t = useTestServer({ engine, env: { ...FAST_PIPELINE, ...production } });

  it('runs with no private address allowed', () => {
    expect(t.config).toMatchObject({ nodeEnv: 'production', carrier: 'sandbox', webhookAllowPrivate: 'none' });
  });

  it.each(cases)('%s: answers 400 url_not_allowed for 127.0.0.1 and stores nothing', async (_, f) => {
    await expectRefused(t, f, 'http://127.0.0.1:9/hook', /loopback address \(127\.0\.0\.1\)/);
  });
});
