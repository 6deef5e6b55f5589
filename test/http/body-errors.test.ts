// Every way a body can fail to be read answers a catalogued problem, never a 500: size, form fields, nesting,
// content encodings and charsets, on every operation that takes a body.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from '../support/server.js';
import { samplePath, v1Operations } from '../support/spec-operations.js';
import { expectProblem } from '../support/raw-http.js';
import { illFormedText, nestedDeeperThan } from '../../server/http/body.js';
import { MAX_FIELD_ERRORS } from '../../server/http/problem.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const deepForm = (levels: number) => `FriendlyName${'[b]'.repeat(levels)}=x`;
const deepJson = (levels: number) => `{"name":${'['.repeat(levels)}${']'.repeat(levels)}}`;
const manyFields = (count: number) => Array.from({ length: count }, (_, i) => `f${i}=x`).join('&');

interface BadBody {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  status: number;
  code: string;
  detail: RegExp;
}

// The account and a number's update take forms that went to the services unparsed (req.body undefined) before.
const BAD_BODIES: BadBody[] = [
  {
    name: 'a form with more than 2000 fields',
    path: '/v1/account',
    headers: { 'content-type': FORM },
    body: manyFields(2001),
    status: 400,
    code: 'invalid_body',
    detail: /^The form has more than 2000 fields\.$/,
  },
  {
    name: 'a form nested 40 levels deep',
    path: '/v1/account',
    headers: { 'content-type': FORM },
    body: deepForm(40),
    status: 400,
    code: 'invalid_body',
    detail: /^The body is nested more than 32 levels deep\.$/,
  },
  {
    name: 'a form nested 40 levels deep on a number',
    path: `/v1/incoming-phone-numbers/PN${'0'.repeat(32)}`,
    headers: { 'content-type': FORM },
    body: deepForm(40),
    status: 400,
    code: 'invalid_body',
    detail: /^The body is nested more than 32 levels deep\.$/,
  },
  {
    name: 'a form over 1 MB',
    path: '/v1/account',
    headers: { 'content-type': FORM },
    body: `name=${'x'.repeat(1_100_000)}`,
    status: 413,
    code: 'payload_too_large',
    detail: /larger than 1 MB/,
  },
  {
    name: 'a JSON body nested 40 levels deep',
    path: '/v1/account',
    headers: { 'content-type': JSON_TYPE },
    body: deepJson(40),
    status: 400,
    code: 'invalid_body',
    detail: /^The body is nested more than 32 levels deep\.$/,
  },
  {
    name: 'a gzip Content-Encoding on a body that is not gzip',
    path: '/v1/messages',
    headers: { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
    body: '{"to": "+14155550100"}',
    status: 400,
    code: 'invalid_body',
    detail: /^The body is not valid gzip data \(incorrect header check\)\.$/,
  },
  {
    name: 'a deflate Content-Encoding on a body that is not deflate',
    path: '/v1/account',
    headers: { 'content-type': FORM, 'content-encoding': 'deflate' },
    body: 'name=plain',
    status: 400,
    code: 'invalid_body',
    detail: /^The body is not valid deflate data/,
  },
  {
    name: 'a br Content-Encoding on a body that is not brotli',
    path: '/v1/messages',
    headers: { 'content-type': JSON_TYPE, 'content-encoding': 'br' },
    body: Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    status: 400,
    code: 'invalid_body',
    detail: /^The body is not valid br data/,
  },
  {
    name: 'a gzip body cut short',
    path: '/v1/messages',
    headers: { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
    body: zlib.gzipSync(JSON.stringify({ body: 'x'.repeat(5000) })).subarray(0, 40),
    status: 400,
    code: 'invalid_body',
    detail: /^The body is not valid gzip data \(unexpected end of file\)\.$/,
  },
  {
    name: 'a gzip body that inflates past 1 MB',
    path: '/v1/messages',
    headers: { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
    body: zlib.gzipSync(JSON.stringify({ body: 'x'.repeat(5_000_000) })),
    status: 413,
    code: 'payload_too_large',
    detail: /larger than 1 MB/,
  },
  {
    name: 'an unknown Content-Encoding',
    path: '/v1/messages',
    headers: { 'content-type': JSON_TYPE, 'content-encoding': 'x-snappy' },
    body: '{}',
    status: 415,
    code: 'unsupported_media_type',
    detail: /^Content-Encoding x-snappy is not supported; send the body uncompressed or as gzip, deflate, br\.$/,
  },
  {
    name: 'a JSON body in a charset other than UTF-8',
    path: '/v1/messages',
    headers: { 'content-type': 'application/json; charset=latin1' },
    body: '{}',
    status: 415,
    code: 'unsupported_media_type',
    detail: /^Charset latin1 is not supported; send the body in UTF-8\.$/,
  },
  {
    name: 'a form in a charset nobody knows',
    path: '/v1/account',
    headers: { 'content-type': `${FORM}; charset=klingon` },
    body: 'name=x',
    status: 415,
    code: 'unsupported_media_type',
    detail: /^Charset klingon is not supported/,
  },
  {
    // Stored as it came, SQLite read it back as three replacement characters and PostgreSQL as one.
    name: 'a JSON body whose text holds a lone surrogate',
    path: '/v1/messages',
    headers: { 'content-type': JSON_TYPE },
    body: '{"from": "+14155550100", "to": "+14155550101", "body": "a\\ud800b"}',
    status: 400,
    code: 'invalid_body',
    detail: /^`body` is not well-formed Unicode text: it holds a lone surrogate \(U\+D800\)\.$/,
  },
  {
    name: 'a JSON body with a lone surrogate in a list',
    path: '/v1/messages',
    headers: { 'content-type': JSON_TYPE },
    body: '{"from": "+14155550100", "to": "+14155550101", "media_url": ["https://a.example/x", "\\udc01"]}',
    status: 400,
    code: 'invalid_body',
    detail: /^`media_url\[1\]` is not well-formed Unicode text: it holds a lone surrogate \(U\+DC01\)\.$/,
  },
];

describe.each(ENGINES)('bodies that cannot be read (%s)', (engine) => {
  const t = useTestServer({ engine });
  const auth = () => ({ authorization: `Bearer ${t.account.apiKey}` });

  it.each(BAD_BODIES)('answers $name with $status $code, naming what was wrong', async (c) => {
    const res = await fetch(t.directUrl + c.path, {
      method: 'POST',
      headers: { ...auth(), ...c.headers },
      body: c.body,
    });
    const problem = await expectProblem(res, c.status, c.code);
    expect(problem.detail).toMatch(c.detail);
  });

  it('lists the encodings it reads in Accept-Encoding when it refuses one', async () => {
    const res = await fetch(`${t.directUrl}/v1/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': JSON_TYPE, 'content-encoding': 'x-snappy' },
      body: '{}',
    });
    expect(res.headers.get('accept-encoding')).toBe('gzip, deflate, br');
  });

  it('reads a well-formed gzip, deflate or br body as the JSON it holds', async () => {
    const url = 'https://example.com/verify-events';
    const json = JSON.stringify({ verify_callback_url: url });
    for (const [encoding, body] of [
      ['gzip', zlib.gzipSync(json)],
      ['deflate', zlib.deflateSync(json)],
      ['br', zlib.brotliCompressSync(json)],
    ] as const) {
      const res = await fetch(`${t.directUrl}/v1/account`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': JSON_TYPE, 'content-encoding': encoding },
        body,
      });
      const account: any = await res.json();
      expect({ encoding, status: res.status, url: account.verify_callback_url }).toEqual({
        encoding,
        status: 200,
        url,
      });
    }
  });

  const withBody = v1Operations().filter((op) => op.bodySchema);
  it('covers the 13 operations that take a body', () => {
    expect(withBody.length).toBeGreaterThanOrEqual(13);
  });

  it.each(withBody.map((op) => [op.operationId, op] as const))(
    '%s answers a body that is not the gzip it claims with 400 invalid_body',
    async (_id, op) => {
      const res = await fetch(t.directUrl + samplePath(op), {
        method: op.method.toUpperCase(),
        headers: { ...auth(), 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
        body: '{"not": "gzip"}',
      });
      const problem = await expectProblem(res, 400, 'invalid_body');
      expect(problem.detail).toBe('The body is not valid gzip data (incorrect header check).');
    },
  );
});

describe('text that is not well-formed Unicode', () => {
  it('finds a lone surrogate in a value or a key, at its path; a surrogate pair is well-formed', () => {
    expect(illFormedText({ body: 'a😀b', media_url: ['x'] })).toBeNull();
    expect(illFormedText({ body: 'a\ud800b' })).toEqual({ path: 'body', codePoint: 0xd800 });
    expect(illFormedText({ a: { b: ['ok', 'x\udfff'] } })).toEqual({ path: 'a.b[1]', codePoint: 0xdfff });
    expect(illFormedText({ ['k\udbff']: 1 })).toEqual({ path: 'k\udbff', codePoint: 0xdbff });
    expect(illFormedText({ m: [{ n: 'ok' }, { n: '\udc00' }] })).toEqual({ path: 'm[1].n', codePoint: 0xdc00 });
    expect(illFormedText(['ok', { a: ['\ud800'] }])).toEqual({ path: '[1].a[0]', codePoint: 0xd800 });
    // A high surrogate followed by another high one: the first is alone.
    expect(illFormedText('\ud83d\ud83d\ude00')).toEqual({ path: '', codePoint: 0xd83d });
  });
});

describe('how deep a body nests', () => {
  it('counts objects and arrays, not scalars, and stops at the first level past the limit', () => {
    expect(nestedDeeperThan('text', 0)).toBe(false);
    expect(nestedDeeperThan({ a: 1 }, 0)).toBe(true);
    expect(nestedDeeperThan({ a: { b: [1] } }, 2)).toBe(true);
    expect(nestedDeeperThan({ a: { b: [1] } }, 3)).toBe(false);
    expect(nestedDeeperThan(JSON.parse(deepJson(100_000)), 32)).toBe(true);
    expect(
      nestedDeeperThan(
        Array.from({ length: 500_000 }, () => 0),
        1,
      ),
    ).toBe(false);
  });
});

describe.each(ENGINES)('field errors of a large body (%s)', (engine) => {
  const t = useTestServer({ engine });

  it(`lists at most ${MAX_FIELD_ERRORS} field errors and counts the rest in the detail`, async () => {
    const body = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, i]));
    const res = await fetch(`${t.directUrl}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.account.apiKey}`, 'content-type': JSON_TYPE },
      body: JSON.stringify(body),
    });
    const problem = await expectProblem(res, 400, 'invalid_request');
    expect(problem.errors).toHaveLength(MAX_FIELD_ERRORS);
    // 40,000 unknown keys and the two required fields missing.
    expect(problem.detail).toMatch(new RegExp(`; and ${40_002 - MAX_FIELD_ERRORS} more$`));
  });
});
