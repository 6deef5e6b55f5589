import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { ENGINES, startTestServer, useTestServer } from './support/server.js';
import { rawRequest } from './support/raw-http.js';

describe.each(ENGINES)('public system routes (%s)', (engine) => {
  const t = useTestServer({ engine });

  it('serves the spec as JSON and YAML without a key', async () => {
    const json = await fetch(`${t.url}/openapi.json`);
    expect(json.status).toBe(200);
    const doc: any = await json.json();
    expect(doc.openapi).toBe('3.0.3');
    const yaml = await fetch(`${t.url}/openapi.yaml`);
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
    expect(YAML.parse(await yaml.text())).toEqual(doc);
  });

  it("names the address it was requested at as the spec's server, in JSON and YAML", async () => {
    const doc: any = await (await fetch(`${t.url}/openapi.json`)).json();
    expect(doc.servers).toEqual([{ url: t.url }]);
    expect(YAML.parse(await (await fetch(`${t.url}/openapi.yaml`)).text()).servers).toEqual([{ url: t.url }]);
    const other = await rawRequest(t.url, ['GET /openapi.json HTTP/1.1\r\nHost: api.example.test:8443\r\n\r\n']);
    expect(JSON.parse(other.body).servers).toEqual([{ url: 'http://api.example.test:8443' }]);
  });

  it('names the default address, not a Host header that is no host, as the server', async () => {
    const forged = await rawRequest(t.url, ['GET /openapi.yaml HTTP/1.1\r\nHost: a"b\r\n\r\n']);
    expect(YAML.parse(forged.body).servers).toEqual([{ url: 'http://localhost:3000' }]);
  });

  it('leads from / to the reference page', async () => {
    const res = await fetch(`${t.url}/`, { redirect: 'manual' });
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 302, location: '/docs' });
  });

  it('renders the API reference page and its assets', async () => {
    const page = await fetch(`${t.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('/openapi.json');
    const asset = await fetch(`${t.url}/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });

  it('reports health and readiness', async () => {
    expect(await (await fetch(`${t.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${t.url}/readyz`)).json()).toEqual({ status: 'ok', database: 'ok' });
  });

  it('exposes Prometheus metrics labelled by operation', async () => {
    await fetch(`${t.url}/healthz`);
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/http_requests_total\{operation="getHealth",status="200"\} \d+/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});

describe('the spec behind a proxy', () => {
  it('names PUBLIC_URL as its server, whatever address it was requested at', async () => {
    const server = await startTestServer('sqlite', { PUBLIC_URL: 'https://voice.example.com' });
    try {
      const doc: any = await (await fetch(`${server.url}/openapi.json`)).json();
      expect(doc.servers).toEqual([{ url: 'https://voice.example.com' }]);
    } finally {
      await server.stop();
    }
  });
});
