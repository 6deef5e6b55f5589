// The error catalogue: the spec lists exactly its codes, and every problem's `type` resolves to a page that
// explains the code and its remedy (GET /problems/{code}, public; HTML by default, JSON on request).
import { describe, expect, it } from 'vitest';
import { CATALOGUE, type ErrorCode } from '../server/errors.js';
import { loadSpec } from '../server/http/spec.js';
import { ENGINES, useTestServer } from './support/server.js';

const catalogueCodes = Object.keys(CATALOGUE).sort();

describe('the error catalogue and the spec', () => {
  const schemas = loadSpec().document.components.schemas;

  it("lists the same codes in the catalogue as in the spec's ProblemCode enum, both ways", () => {
    const specCodes: string[] = [...schemas.ProblemCode.enum].sort();
    expect({
      inCatalogueNotInSpec: catalogueCodes.filter((code) => !specCodes.includes(code)),
      inSpecNotInCatalogue: specCodes.filter((code) => !catalogueCodes.includes(code)),
    }).toEqual({ inCatalogueNotInSpec: [], inSpecNotInCatalogue: [] });
    expect(schemas.Problem.properties.code).toEqual({ $ref: '#/components/schemas/ProblemCode' });
  });

  it('names every code with its status in the ProblemCode description', () => {
    for (const [code, entry] of Object.entries(CATALOGUE)) {
      expect(schemas.ProblemCode.description).toContain(`[\`${code}\`](/problems/${code}) (${entry.status})`);
    }
  });
});

const json = { accept: 'application/json' };
const escaped = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

describe.each(ENGINES)('problem pages (%s)', (engine) => {
  const t = useTestServer({ engine });
  const auth = () => ({ authorization: `Bearer ${t.account.apiKey}` });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(t.url + path, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  // Real error responses, one per code a request can provoke without a long setup.
  const provoked: [ErrorCode, () => Promise<Response>][] = [
    ['invalid_request', () => post('/v1/messages', '{}')],
    ['invalid_json', () => post('/v1/messages', '{"to": ')],
    ['batch_too_large', () => post('/v1/lookups/batch', { phone_numbers: Array(1001).fill('+14155550123') })],
    ['unauthorized', () => fetch(`${t.url}/v1/messages`)],
    ['not_found', () => fetch(`${t.url}/v1/messages/SM${'0'.repeat(32)}`, { headers: auth() })],
    ['method_not_allowed', () => fetch(`${t.url}/v1/messages`, { method: 'PUT', headers: auth() })],
    ['payload_too_large', () => post('/v1/messages', { body: 'x'.repeat(1_100_000) })],
    ['unsupported_media_type', () => post('/v1/messages', 'hello', { 'content-type': 'text/plain' })],
    ['from_number_not_owned', () => post('/v1/messages', { from: '+14155550100', to: '+14155550101', body: 'hi' })],
    [
      'address_not_found',
      () => post('/v1/incoming-phone-numbers', { PhoneNumber: '+14155550100', AddressSid: `AD${'0'.repeat(32)}` }),
    ],
    [
      'no_proxy_number_available',
      () =>
        post('/v1/proxy/sessions', { participants: [{ identifier: '+14155550123' }, { identifier: '+14155550187' }] }),
    ],
  ];

  it.each(provoked)('resolves the type of a real %s problem to its explanation', async (code, provoke) => {
    const res = await provoke();
    const problem: any = await res.json();
    const entry = CATALOGUE[code];
    expect(res.status).toBe(entry.status);
    expect(problem).toMatchObject({ type: `/problems/${code}`, code, status: entry.status, title: entry.title });

    const page = await fetch(new URL(problem.type, t.url), { headers: json });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await page.json()).toEqual({ code, type: problem.type, ...entry });

    const html = await fetch(new URL(problem.type, t.url));
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain(`<h1>${entry.title}</h1>`);
  });

  it('explains every code of the catalogue without a key, as JSON and as an HTML page', async () => {
    for (const [code, entry] of Object.entries(CATALOGUE)) {
      const res = await fetch(`${t.url}/problems/${code}`, { headers: json });
      expect(res.status, code).toBe(200);
      expect(await res.json()).toEqual({ code, type: `/problems/${code}`, ...entry });
      const html = await (await fetch(`${t.url}/problems/${code}`, { headers: { accept: 'text/html' } })).text();
      expect(html).toContain(`<p>${escaped(entry.explanation)}</p>`);
      expect(html).toContain(`<p>${escaped(entry.remedy)}</p>`);
    }
  });

  it('lists every code at /problems, linking each page', async () => {
    const res = await fetch(`${t.url}/problems`, { headers: json });
    expect(res.status).toBe(200);
    const list: any = await res.json();
    expect(list.data.map((p: { code: string }) => p.code).sort()).toEqual(catalogueCodes);
    const html = await (await fetch(`${t.url}/problems`)).text();
    for (const code of catalogueCodes) expect(html).toContain(`<a href="/problems/${code}"><code>${code}</code></a>`);
  });

  it('answers an unknown code with a 404 not_found problem', async () => {
    const res = await fetch(`${t.url}/problems/no_such_code`, { headers: json });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toEqual({
      type: '/problems/not_found',
      title: 'Not found',
      status: 404,
      detail: 'No problem code no_such_code; GET /problems lists them all.',
      code: 'not_found',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('links the problem pages from the reference page at /docs', async () => {
    expect(await (await fetch(`${t.url}/docs`)).text()).toContain("url: '/openapi.json'");
    const spec: any = await (await fetch(`${t.url}/openapi.json`)).json();
    expect(spec.info.description).toContain('[/problems](/problems)');
  });
});
