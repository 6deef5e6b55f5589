// Requests for the fuzz suite, derived from spec/openapi.yaml: valid ones built from each operation's schemas, and
// seeded malformed variants of them. Each names its variant, so a failure says what was sent.
import { gzipSync } from 'node:zlib';
import { loadSpec, type OperationInfo } from '../../server/http/spec.js';
import type { FuzzAccount } from './accounts.js';
import type { Random } from './random.js';

/**
 * `reject`: a malformed request, which must answer 4xx and change nothing (sent to the account whose rows are
 * compared). `any`: a valid request or one that may be valid (odd but allowed text); it may change state.
 */
export type Expectation = 'reject' | 'any';
type Auth = 'key' | 'none' | 'wrong';

export interface FuzzRequest {
  operationId: string;
  /** What was done to the request, e.g. `body.wrong-type:to:number`; its first segment is the kind. */
  variant: string;
  method: string;
  /** The raw request target, already percent-encoded as it goes on the wire. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  auth: Auth;
  expect: Expectation;
}

type Schema = Record<string, any>;

/** Numbers no account holds: valid destinations that never arrive as another account's inbound traffic. */
const OUTSIDE = ['+15005550003', '+15005550001', '+447400123456', '+4915123456789'];
const LOOPBACK_URL = 'http://127.0.0.1:9/fuzz';

/** Strings that are odd but may be valid in free text; the `any` class. */
const ODD_TEXT: [string, string][] = [
  ['nul', 'a\u0000b'],
  ['lone-surrogate', 'x\ud800y'],
  ['lone-low-surrogate', '\udc00'],
  ['rtl', '\u202eabc\u202c'],
  ['emoji', '👩‍👩‍👧‍👦🎉'],
  ['zero-width', 'a\u200b\u200d\ufeffb'],
  ['combining', 'e\u0301\u0301\u0301'],
  ['astral', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢'],
  ['sql', "'; DROP TABLE messages; --"],
  ['controls', '\u0001\u001b[31m\u007f'],
  ['newlines', 'a\r\nb\nc'],
  ['percent', '%00%2F..%ZZ'],
];

/** Path segments that are not a resource's id. */
const BAD_SEGMENTS: [string, string][] = [
  ['dot-dot', '..'],
  ['encoded-dot-dot', '%2e%2e'],
  ['encoded-slash', 'a%2Fb'],
  ['encoded-backslash', '..%5C..%5Cetc'],
  ['encoded-nul', 'SM%00'],
  ['malformed-percent', '%ZZ'],
  ['truncated-percent', '%E0%A4%A'],
  ['invalid-utf8', '%C3%28'],
  ['lone-surrogate-bytes', '%ED%A0%80'],
  ['emoji', encodeURIComponent('😀')],
  ['rtl', encodeURIComponent('\u202eMS')],
  ['very-long', 'x'.repeat(6000)],
  ['space', '%20'],
  ['semicolon', 'x;y=1'],
  ['json', encodeURIComponent('{"$ne":1}')],
];

/** Page tokens that the server never issued. */
const BAD_TOKENS: [string, string][] = [
  ['garbage', 'not-a-token'],
  ['base64-garbage', Buffer.from('\u0000\u00ff\u00fe garbage').toString('base64url')],
  ['base64-json-array', Buffer.from('[1,2,3]').toString('base64url')],
  ['base64-json-null', Buffer.from('null').toString('base64url')],
  ['base64-json-object', Buffer.from('{"d":"x","s":1}').toString('base64url')],
  ['base64-json-nul', Buffer.from('{"c":"\\u0000","s":"SM\\u0000"}').toString('base64url')],
  ['base64-json-wrong-types', Buffer.from('{"c":"2026-01-01T00:00:00.000Z","s":{"$gt":""}}').toString('base64url')],
  ['base64-json-not-a-date', Buffer.from('{"c":"yesterday","s":"SM00"}').toString('base64url')],
  ['base64-json-proto', Buffer.from('{"__proto__":{"x":1},"constructor":{}}').toString('base64url')],
  ['base64-json-deep', Buffer.from('['.repeat(200) + ']'.repeat(200)).toString('base64url')],
  ['dot', '.'],
  ['padding', '===='],
  ['emoji', '😀'],
  ['nul', '\u0000'],
  ['too-long', 'A'.repeat(600)],
];

/** The sandbox's injections: from an outside number to the account's. */
const INBOUND = new Set(['injectInboundMessage', 'injectInboundCall']);

export class RequestFactory {
  private readonly document = loadSpec().document;

  constructor(
    private readonly random: Random,
    private readonly operations: OperationInfo[],
  ) {}

  /** A valid request (as far as the schemas go; cross-field rules may still refuse some). */
  valid(op: OperationInfo, account: FuzzAccount): FuzzRequest {
    const body = op.bodySchema ? this.value(op, '', op.bodySchema, account) : undefined;
    const form = body !== undefined && this.random.chance(0.25);
    // Requests that end one of the account's resources mostly name another sid, so the rest keep their targets.
    const ends = op.method === 'delete' || op.operationId === 'updateVerification' || op.operationId === 'updateCall';
    return this.request(op, account, 'valid', 'any', {
      body,
      form,
      query: this.validQuery(op, account),
      pathValues: ends && this.random.chance(0.9) ? { sid: this.otherSid(op) } : undefined,
    });
  }

  /** A variant that may be valid: odd text in a free-text field, a gzip or form body, a polluted form. */
  maybeValid(op: OperationInfo, account: FuzzAccount): FuzzRequest {
    const r = this.random;
    const body = op.bodySchema ? (this.value(op, '', op.bodySchema, account) as Record<string, unknown>) : undefined;
    const query = this.validQuery(op, account);
    const choices: (() => FuzzRequest)[] = [];
    const freeBody = body
      ? Object.entries<Schema>(op.bodySchema!.properties ?? {})
          .filter(([, schema]) => isFreeText(flatten(schema)))
          .map(([name]) => name)
      : [];
    const textInBody = () => {
      const field = r.pick(freeBody);
      const [kind, text] = r.pick(ODD_TEXT);
      const form = r.chance(0.3);
      return this.request(op, account, `text.${kind}:${field}`, 'any', {
        body: { ...body!, [field]: text },
        form,
        query,
      });
    };
    if (freeBody.length) choices.push(textInBody, textInBody, textInBody);
    const urls = body
      ? Object.entries<Schema>(op.bodySchema!.properties ?? {})
          .filter(([, schema]) => /https/.test(flatten(schema).pattern ?? ''))
          .map(([name]) => name)
      : [];
    if (urls.length) {
      // Appended to the path of a loopback URL, so the host stays 127.0.0.1 whatever the text.
      const urlVariant = () => {
        const field = r.pick(urls);
        const [kind, text] = r.pick(ODD_TEXT);
        return this.request(op, account, `url.${kind}:${field}`, 'any', {
          body: { ...body!, [field]: `${LOOPBACK_URL}/${text}` },
          form: r.chance(0.3),
          query,
        });
      };
      choices.push(urlVariant, urlVariant);
    }
    const freeQuery = this.queryParams(op).filter((p) => isFreeText(p.schema));
    if (freeQuery.length) {
      choices.push(() => {
        const param = r.pick(freeQuery);
        const [kind, text] = r.pick(ODD_TEXT);
        return this.request(op, account, `query.${kind}:${param.name}`, 'any', {
          query: { ...query, [param.name]: text },
        });
      });
    }
    if (op.operationId === 'lookupPhoneNumber') {
      choices.push(() => {
        const [kind, text] = r.pick(ODD_TEXT);
        return this.request(op, account, `path.${kind}:number`, 'any', { pathValues: { number: text }, query });
      });
    }
    if (body) {
      choices.push(() => this.request(op, account, 'enc.gzip-valid', 'any', { body, query, gzip: true }));
      choices.push(() => this.request(op, account, 'form.valid', 'any', { body, query, form: true }));
      choices.push(() =>
        this.request(op, account, 'form.proto', 'any', {
          query,
          raw: `${toForm(body)}&__proto__[polluted]=1&constructor[prototype][polluted]=1`,
          contentType: 'application/x-www-form-urlencoded',
        }),
      );
    }
    if (choices.length === 0) return this.valid(op, account);
    return r.pick(choices)();
  }

  /** A malformed variant of a valid request to `account`'s resources: it must be refused. */
  malformed(op: OperationInfo, account: FuzzAccount): FuzzRequest {
    const r = this.random;
    const body = op.bodySchema ? (this.value(op, '', op.bodySchema, account) as Record<string, unknown>) : undefined;
    const query = this.validQuery(op, account);
    const make = (variant: string, parts: Parts) => this.request(op, account, variant, 'reject', { query, ...parts });
    const choices: [number, () => FuzzRequest][] = [];
    choices.push([1, () => make(`query.unknown-param`, { query: { ...query, surprise: 'x' } })]);
    choices.push([1, () => make('method.wrong', { method: r.pick(this.methodsNotAt(op.path)) })]);
    if (body && this.takesIdempotencyKey(op)) {
      choices.push([
        1,
        () => {
          const [kind, key] = r.pick<[string, string]>([
            ['too-long', 'k'.repeat(256)],
            ['empty', ''],
          ]);
          return make(`header.idempotency-key:${kind}`, { body, idempotencyKey: key });
        },
      ]);
    }
    if (body) this.bodyMutations(op, body, make, choices);
    const queryParams = this.queryParams(op);
    if (queryParams.length) this.queryMutations(queryParams, query, make, choices);
    const pathParams = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const name of pathParams) {
      choices.push([
        2,
        () => {
          const [kind, segment] = r.pick(BAD_SEGMENTS);
          return make(`path.${kind}:${name}`, { rawPathValues: { [name]: segment }, body });
        },
      ]);
      if (name === 'sid') {
        choices.push([1, () => make('path.unknown-sid', { pathValues: { sid: this.otherSid(op) }, body })]);
        choices.push([
          1,
          () => make('path.uppercase-sid', { pathValues: { sid: this.ownSid(op, account).toUpperCase() }, body }),
        ]);
        choices.push([
          1,
          () => make('path.unknown-sid-trailing-slash', { pathValues: { sid: this.otherSid(op) }, body, suffix: '/' }),
        ]);
      }
    }
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let at = r.next() * total;
    for (const [weight, build] of choices) {
      at -= weight;
      if (at < 0) return build();
    }
    return choices[choices.length - 1][1]();
  }

  private bodyMutations(
    op: OperationInfo,
    body: Record<string, unknown>,
    make: (variant: string, parts: Parts) => FuzzRequest,
    choices: [number, () => FuzzRequest][],
  ) {
    const r = this.random;
    const schema = op.bodySchema!;
    const props = Object.entries<Schema>(schema.properties ?? {}).map(([name, s]) => [name, flatten(s)] as const);
    const required: string[] = schema.required ?? [];
    if (required.length) {
      choices.push([
        2,
        () => {
          const field = r.pick(required);
          const { [field]: _, ...rest } = body;
          return make(`body.missing-required:${field}`, { body: rest });
        },
      ]);
    }
    choices.push([
      4,
      () => {
        const [field, s] = r.pick(props);
        const [kind, value] = r.pick(wrongTypes(s));
        return make(`body.wrong-type:${field}:${kind}`, { body: { ...body, [field]: value } });
      },
    ]);
    const numbers = props.filter(([, s]) => s.type === 'integer');
    if (numbers.length) {
      choices.push([
        1,
        () => {
          const [field] = r.pick(numbers);
          const literal = r.pick(['1e400', '-1e400', '1e21', '9007199254740993']);
          const { [field]: _, ...others } = body;
          const rest = JSON.stringify(others).slice(1, -1);
          return make(`body.number-literal:${field}:${literal}`, {
            raw: `{"${field}":${literal}${rest ? ',' + rest : ''}}`,
            contentType: 'application/json',
          });
        },
      ]);
    }
    choices.push([1, () => make('body.extra-field', { body: { ...body, surprise: r.pick([1, 'x', null, {}]) } })]);
    choices.push([
      2,
      () => {
        const key = r.pick(['__proto__', 'constructor', 'prototype']);
        const nested = r.chance(0.5);
        const json = JSON.stringify(body).slice(1, -1);
        const raw = nested
          ? `{${json},"nested":{"${key}":{"polluted":1}}}`
          : `{"${key}":{"polluted":1,"prototype":{"polluted":1}}${json ? ',' + json : ''}}`;
        return make(`body.proto-key:${key}${nested ? ':nested' : ''}`, { raw, contentType: 'application/json' });
      },
    ]);
    const strings = props.filter(([, s]) => s.type === 'string' && s.maxLength);
    if (strings.length) {
      choices.push([
        2,
        () => {
          const [field, s] = r.pick(strings);
          const filler = r.pick(['a', '😀', '\u0000', '9']);
          return make(`body.huge-string:${field}`, {
            body: { ...body, [field]: filler.repeat(s.maxLength + 1 + r.int(0, 60_000)) },
          });
        },
      ]);
    }
    // Anchored patterns of a format only: odd text added to a URL or to free text may still match.
    const patterned = props.filter(
      ([, s]) =>
        s.type === 'string' && (s.enum || (/^\^.*\$$/.test(s.pattern ?? '') && !/https|\\u0000/.test(s.pattern))),
    );
    const texts = props.filter(([, s]) => s.pattern?.includes('\\u0000'));
    if (texts.length) {
      choices.push([
        2,
        () => {
          const [field] = r.pick(texts);
          const value = field === 'custom_message' ? 'a\u0000 {code}' : r.pick(['\u0000', 'a\u0000b', 'ok\u0000']);
          return make(`body.nul-in-text:${field}`, { body: { ...body, [field]: value }, form: r.chance(0.3) });
        },
      ]);
    }
    if (patterned.length) {
      choices.push([
        2,
        () => {
          const [field] = r.pick(patterned);
          const [kind, text] = r.pick(ODD_TEXT);
          const value = typeof body[field] === 'string' ? `${body[field]}${text}` : text;
          return make(`body.odd-text-in-pattern:${field}:${kind}`, { body: { ...body, [field]: value } });
        },
      ]);
    }
    choices.push([
      2,
      () => {
        const depth = r.pick([64, 512, 5000]);
        const [field] = r.pick(props);
        const deep = r.chance(0.5)
          ? '['.repeat(depth) + ']'.repeat(depth)
          : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
        const { [field]: _, ...others } = body;
        const rest = JSON.stringify(others).slice(1, -1);
        return make(`body.deep-nesting:${field}:${depth}`, {
          raw: `{"${field}":${deep}${rest ? ',' + rest : ''}}`,
          contentType: 'application/json',
        });
      },
    ]);
    choices.push([
      1,
      () => {
        const [kind, raw] = r.pick<[string, string]>([
          ['array', '[]'],
          ['string', '"x"'],
          ['number', '42'],
          ['null', 'null'],
          ['true', 'true'],
          ['truncated', JSON.stringify(body).slice(0, -3)],
          ['trailing-comma', JSON.stringify(body).slice(0, -1) + ',}'],
          ['single-quotes', "{'surprise': 1}"],
          ['empty', ''],
          ['whitespace', ' \n '],
          ['nul-byte', '\u0000'],
          ['duplicate-keys', `${JSON.stringify(body).slice(0, -1)},"surprise":1,"surprise":2}`],
          ['deep-array', '['.repeat(100_000) + ']'.repeat(100_000)],
        ]);
        return make(`body.not-an-object:${kind}`, { raw, contentType: 'application/json' });
      },
    ]);
    choices.push([1, () => make('body.too-large', { body: { ...body, surprise: 'x'.repeat(1_100_000) } })]);
    choices.push([
      3,
      () => {
        const [kind, contentType, raw] = r.pick<[string, string, string | undefined]>([
          ['text-plain', 'text/plain', undefined],
          ['xml', 'application/xml', '<x/>'],
          ['none', '', undefined],
          [
            'multipart',
            'multipart/form-data; boundary=x',
            '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
          ],
          ['json-as-form', 'application/x-www-form-urlencoded', undefined],
          ['form-as-json', 'application/json', toForm(body) || 'a=1'],
          ['charset-utf16', 'application/json; charset=utf-16', undefined],
          ['charset-bogus', 'application/json; charset=x-bogus', undefined],
          ['octet-stream', 'application/octet-stream', undefined],
          ['garbage', ';;;/', undefined],
        ]);
        return make(`ctype.${kind}`, { raw: raw ?? JSON.stringify(body), contentType });
      },
    ]);
    choices.push([
      2,
      () => {
        const [kind, encoding] = r.pick<[string, string]>([
          ['gzip-junk', 'gzip'],
          ['deflate-junk', 'deflate'],
          ['br-junk', 'br'],
          ['unknown', 'x-compress'],
          ['identity-gzip', 'identity, gzip'],
        ]);
        return make(`enc.${kind}`, {
          raw: JSON.stringify(body),
          contentType: 'application/json',
          contentEncoding: encoding,
        });
      },
    ]);
    choices.push([
      2,
      () => {
        const [kind, raw] = r.pick<[string, string]>([
          ['too-many-fields', Array.from({ length: 2001 }, (_, i) => `f${i}=1`).join('&')],
          ['too-deep', 'a' + '[b]'.repeat(40) + '=1'],
          ['repeated-scalar', `${toForm(body)}&${repeatedScalar(body)}`],
          ['bracket-array-index', `${toForm(body)}&surprise[999999]=1`],
          ['bad-percent', `${toForm(body)}&x=%ZZ%E0%A4%A`],
        ]);
        return make(`form.${kind}`, { raw, contentType: 'application/x-www-form-urlencoded' });
      },
    ]);
  }

  private queryMutations(
    params: { name: string; schema: Schema }[],
    query: Record<string, string>,
    make: (variant: string, parts: Parts) => FuzzRequest,
    choices: [number, () => FuzzRequest][],
  ) {
    const r = this.random;
    if (params.some((p) => p.name === 'page_token')) {
      choices.push([
        3,
        () => {
          const [kind, token] = r.pick(BAD_TOKENS);
          return make(`query.bad-page-token:${kind}`, { query: { ...query, page_token: token } });
        },
      ]);
    }
    choices.push([
      3,
      () => {
        const param = r.pick(params);
        const [kind, value] = r.pick(badQueryValues(param.schema));
        return make(`query.bad-value:${param.name}:${kind}`, { query: { ...query, [param.name]: value } });
      },
    ]);
    choices.push([
      1,
      () => {
        const param = r.pick(params);
        return make(`query.repeated:${param.name}`, {
          rawQuery: `${param.name}=${encodeURIComponent(sampleQueryValue(param.schema))}&${param.name}=1`,
        });
      },
    ]);
  }

  private request(op: OperationInfo, account: FuzzAccount, variant: string, expect: Expectation, parts: Parts) {
    const r = this.random;
    const params = this.pathValues(op, account);
    let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      parts.rawPathValues?.[name] !== undefined
        ? parts.rawPathValues[name]
        : encode(parts.pathValues?.[name] ?? params[name]),
    );
    path += parts.suffix ?? '';
    const queryString =
      parts.rawQuery ??
      Object.entries(parts.query ?? {})
        .map(([k, v]) => `${encode(k)}=${encode(v)}`)
        .join('&');
    if (queryString) path += `?${queryString}`;
    const auth: Auth = op.public ? 'none' : r.chance(0.12) ? r.pick(['none', 'wrong'] as const) : 'key';
    const headers: Record<string, string> = {};
    if (auth === 'key') headers.authorization = `Bearer ${account.apiKey}`;
    if (auth === 'wrong') headers.authorization = r.pick(['Bearer sk_wrong', 'Basic eDp5', 'Bearer', 'bearer  ']);
    let body: Buffer | undefined;
    if (parts.raw !== undefined) {
      body = Buffer.from(parts.raw, 'utf8');
      if (parts.contentType) headers['content-type'] = parts.contentType;
    } else if (parts.body !== undefined) {
      body = Buffer.from(parts.form ? toForm(parts.body) : JSON.stringify(parts.body), 'utf8');
      headers['content-type'] = parts.form ? 'application/x-www-form-urlencoded' : 'application/json';
    }
    if (body && parts.gzip) {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    }
    if (body && parts.contentEncoding) headers['content-encoding'] = parts.contentEncoding;
    if (body && op.bodySchema && r.chance(0.1)) headers['idempotency-key'] = `fuzz-${r.hex(12)}`;
    if (parts.idempotencyKey !== undefined) headers['idempotency-key'] = parts.idempotencyKey;
    return {
      operationId: op.operationId,
      variant,
      method: (parts.method ?? op.method).toUpperCase(),
      path,
      headers,
      body,
      auth,
      expect,
    };
  }

  /** A value for `schema`, valid as far as the schema goes, pointing at the account's resources. */
  private value(op: OperationInfo, name: string, raw: Schema, account: FuzzAccount): unknown {
    const r = this.random;
    const s = flatten(raw);
    const special = this.special(op, name, account);
    if (special !== undefined) return special;
    if (s.enum) return r.pick(s.enum);
    switch (s.type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        const required: string[] = s.required ?? [];
        for (const [key, sub] of Object.entries<Schema>(s.properties ?? {})) {
          if (required.includes(key) || r.chance(0.5)) out[key] = this.value(op, key, sub, account);
        }
        if (s.minProperties && Object.keys(out).length < s.minProperties) {
          const key = Object.keys(s.properties)[0];
          out[key] = this.value(op, key, s.properties[key], account);
        }
        return out;
      }
      case 'array': {
        const count = r.int(Math.max(1, s.minItems ?? 1), Math.min(s.maxItems ?? 3, 3));
        return Array.from({ length: count }, () => this.value(op, `${name}[]`, s.items, account));
      }
      case 'integer':
        return r.int(s.minimum ?? 1, Math.min(s.maximum ?? 100, (s.minimum ?? 1) + 10_000));
      case 'boolean':
        return r.chance(0.5);
      case 'string':
        if (s.format === 'uri' || /https\?/.test(s.pattern ?? '')) return `${LOOPBACK_URL}/${r.hex(6)}`;
        if (s.format === 'date-time') return new Date(Date.now() + r.int(1, 48) * 3600_000).toISOString();
        if (s.pattern) return s.example ?? 'x';
        return this.text(s.minLength ?? 1, Math.min(s.maxLength ?? 40, 40));
      default:
        return s.example ?? 'x';
    }
  }

  /** Values the schemas cannot tell: the account's own resources, numbers no one holds, loopback URLs. */
  private special(op: OperationInfo, name: string, account: FuzzAccount): unknown {
    const r = this.random;
    switch (name) {
      case 'from':
        return INBOUND.has(op.operationId) ? r.pick(OUTSIDE) : account.number;
      case 'to':
        return INBOUND.has(op.operationId) ? account.number : r.pick(OUTSIDE);
      case 'identifier':
        return r.pick(OUTSIDE);
      case 'participants':
        return [{ identifier: OUTSIDE[0] }, { identifier: OUTSIDE[2], friendly_name: this.text(1, 20) }];
      case 'PhoneNumber':
        return r.pick(account.available);
      case 'AddressSid':
        return account.addressSid;
      case 'verification_sid':
        return account.verificationSid;
      case 'code':
        return String(r.int(100_000, 999_999));
      case 'iso_country':
      case 'country_code':
        return r.pick(['US', 'DE', 'GB', 'us']);
      case 'custom_message':
        return `${this.text(1, 20)} {code}`;
      case 'phone_numbers[]':
        return r.pick(['+447400123456', '03012', 'call me', '+14155550123', '0']);
      case 'send_at':
        return r.chance(0.5) ? undefined : new Date(Date.now() + r.int(1, 48) * 3600_000).toISOString();
      default:
        return undefined;
    }
  }

  private text(min: number, max: number): string {
    const r = this.random;
    const alphabet = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789-_.,ßé';
    let out = '';
    const length = r.int(min, Math.max(min, max));
    for (let i = 0; i < length; i++) out += alphabet[r.int(0, alphabet.length - 1)];
    return out.trim() || 'x';
  }

  private queryParams(op: OperationInfo): { name: string; schema: Schema }[] {
    const item = this.document.paths[op.path];
    return [...(item.parameters ?? []), ...(item[op.method].parameters ?? [])]
      .map((p: Schema) => this.resolve(p))
      .filter((p: Schema) => p.in === 'query')
      .map((p: Schema) => ({ name: p.name as string, schema: flatten(this.resolve(p.schema)) }));
  }

  private validQuery(op: OperationInfo, account: FuzzAccount): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { name, schema } of this.queryParams(op)) {
      if (name === 'page_token' || !this.random.chance(0.3)) continue;
      if (name === 'from' || name === 'to' || name === 'phone_number') out[name] = account.number;
      else if (schema.format === 'date-time') out[name] = new Date(Date.now() - 3600_000).toISOString();
      else out[name] = sampleQueryValue(schema, this.random);
    }
    return out;
  }

  private pathValues(op: OperationInfo, account: FuzzAccount): Record<string, string> {
    const values: Record<string, string> = {};
    for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
      if (name === 'sid') values.sid = this.ownSid(op, account);
      else if (name === 'country') values.country = this.random.pick(['US', 'GB', 'CA', 'us', 'ZZ']);
      else if (name === 'number') values.number = this.random.pick(['+14155550123', '0301234567', 'call me']);
      else if (name === 'to') values.to = account.verificationTo;
      else if (name === 'code') values.code = 'invalid_request';
      else throw new Error(`no value for path parameter ${name} of ${op.operationId}`);
    }
    return values;
  }

  /** The account's own resource for a sid path. */
  private ownSid(op: OperationInfo, account: FuzzAccount): string {
    const prefix = this.sidPrefix(op);
    const own: Record<string, string> = {
      SM: account.messageSid,
      PN: account.numberSid,
      AD: account.addressSid,
      VE: account.verificationSid,
      CA: account.callSid,
      RE: account.recordingSid,
      KC: account.proxySessionSid,
    };
    return own[prefix] ?? `${prefix}${this.random.hex(32)}`;
  }

  private otherSid(op: OperationInfo): string {
    return `${this.sidPrefix(op)}${this.random.hex(32)}`;
  }

  private sidPrefix(op: OperationInfo): string {
    const item = this.document.paths[op.path];
    const param = [...(item.parameters ?? []), ...(item[op.method].parameters ?? [])]
      .map((p: Schema) => this.resolve(p))
      .find((p: Schema) => p.name === 'sid');
    if (!param) throw new Error(`${op.operationId} has no sid parameter`);
    const pattern: string = flatten(this.resolve(param.schema)).pattern;
    return /^\^([A-Z]{2})/.exec(pattern)![1];
  }

  private takesIdempotencyKey(op: OperationInfo): boolean {
    const item = this.document.paths[op.path];
    return [...(item.parameters ?? []), ...(item[op.method].parameters ?? [])]
      .map((p: Schema) => this.resolve(p))
      .some((p: Schema) => p.in === 'header' && p.name === 'Idempotency-Key');
  }

  private methodsNotAt(path: string): string[] {
    const taken = new Set(this.operations.filter((o) => o.path === path).map((o) => o.method.toUpperCase()));
    return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !taken.has(m) && m !== 'GET');
  }

  private resolve(node: Schema): Schema {
    let current = node;
    while (current?.$ref) {
      current = current.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((acc: Schema, part: string) => acc[part], this.document);
    }
    return current;
  }
}

interface Parts {
  body?: unknown;
  form?: boolean;
  gzip?: boolean;
  raw?: string;
  contentType?: string;
  contentEncoding?: string;
  query?: Record<string, string>;
  rawQuery?: string;
  pathValues?: Record<string, string>;
  rawPathValues?: Record<string, string>;
  suffix?: string;
  method?: string;
  idempotencyKey?: string;
}

/** A second value for one scalar field of the body (an array where the schema wants one value), or an unknown key. */
function repeatedScalar(body: Record<string, unknown>): string {
  const scalar = Object.keys(body).find((k) => body[k] !== null && typeof body[k] !== 'object');
  return scalar ? `${encode(scalar)}=1` : 'surprise=1';
}

/** A schema with its allOf parts merged (the spec uses allOf to add a description to a shared schema). */
function flatten(schema: Schema): Schema {
  if (!schema?.allOf) return schema;
  const { allOf, ...rest } = schema;
  return Object.assign({}, ...(allOf as Schema[]).map(flatten), rest);
}

/** The pattern of text fields that take anything but NUL (PostgreSQL cannot store U+0000 in text). */
const NO_NUL = '^[^\\u0000]*$';

function isFreeText(schema: Schema): boolean {
  return schema.type === 'string' && (!schema.pattern || schema.pattern === NO_NUL) && !schema.enum && !schema.format;
}

function wrongTypes(s: Schema): [string, unknown][] {
  const all: [string, unknown][] = [
    ['number', 7],
    ['float', 1.5],
    ['huge-number', 1e308],
    ['negative', -1],
    ['bool', true],
    ['null', null],
    ['array', ['x']],
    ['empty-array', []],
    ['object', { a: 1 }],
    ['empty-object', {}],
    ['string', 'x'],
    ['numeric-string', '12'],
  ];
  switch (s.type) {
    case 'string':
      return all.filter(([k]) => !['string', 'numeric-string'].includes(k) || s.enum);
    case 'integer':
      return all.filter(([k]) => k !== 'number' || (s.minimum ?? 0) > 7 || (s.maximum ?? 8) < 7);
    case 'boolean':
      return all.filter(([k]) => k !== 'bool');
    case 'array':
      return all.filter(([k]) => !['array', 'empty-array'].includes(k));
    default:
      return all.filter(([k]) => !['object', 'empty-object'].includes(k));
  }
}

function badQueryValues(s: Schema): [string, string][] {
  const out: [string, string][] = [['too-long', 'x'.repeat(Math.max(s.maxLength ?? 100, 100) + 1)]];
  // Text without a NUL-free pattern takes a NUL (the maybe-valid requests send it there).
  if (!isFreeText(s) || s.pattern === NO_NUL) out.push(['nul', '\u0000']);
  if (s.type === 'integer')
    out.push(['letters', 'ten'], ['zero', '0'], ['huge', '1e400'], ['float', '1.5'], ['negative', '-1']);
  if (s.type === 'boolean') out.push(['word', 'maybe'], ['number', '2']);
  if (s.enum) out.push(['not-in-enum', 'lost'], ['case', String(s.enum[0]).toUpperCase() + 'X']);
  if (s.pattern && s.pattern !== NO_NUL) out.push(['pattern', 'not matching ✗']);
  if (s.format === 'date-time') out.push(['date', 'yesterday'], ['overflow', '2026-13-45T99:99:99Z']);
  return out;
}

function sampleQueryValue(s: Schema, random?: Random): string {
  if (s.enum) return String(random ? random.pick(s.enum) : s.enum[0]);
  if (s.type === 'integer') return String(random ? random.int(s.minimum ?? 1, Math.min(s.maximum ?? 100, 200)) : 1);
  if (s.type === 'boolean') return random?.chance(0.5) ? 'true' : 'false';
  if (s.pattern === '^[0-9]{1,5}$') return '415';
  if (s.pattern === '^[0-9*]{1,16}$') return '55*';
  if (s.pattern === '^[A-Za-z]{2}$') return 'US';
  if (s.example !== undefined) return String(s.example);
  return 'fuzz';
}

/** A form body the way the docs describe it: repeated keys for arrays, brackets for nested objects. */
function toForm(value: unknown, prefix = ''): string {
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) {
      return value.map((v) => `${encode(prefix)}=${encode(String(v))}`).join('&');
    }
    return value.map((v, i) => toForm(v, `${prefix}[${i}]`)).join('&');
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => toForm(v, prefix ? `${prefix}[${k}]` : k))
      .join('&');
  }
  return `${encode(prefix)}=${encode(String(value))}`;
}

/** encodeURIComponent, except that a lone surrogate goes out as the bytes UTF-8 would give it (invalid UTF-8). */
function encode(text: string): string {
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]|[^\ud800-\udfff]+/g, (part) => {
    if (part.length > 1 || !/[\ud800-\udfff]/.test(part)) return encodeURIComponent(part);
    const code = part.charCodeAt(0);
    return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
      .map((b) => `%${b.toString(16).toUpperCase()}`)
      .join('');
  });
}
