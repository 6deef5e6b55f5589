import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { ENGINES, useTestServer } from './support/server.js';

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
