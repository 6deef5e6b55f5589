// Public routes: the spec, its reference page, the problem pages, health, readiness and metrics. None needs an API key.
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Express, type Request } from 'express';
import type { Registry } from 'prom-client';
import { errors } from '../errors.js';
import { problemBody } from '../http/problem.js';
import type { Readiness } from './readiness.js';
import { loadSpec } from '../http/spec.js';
import { mountProblemPages } from './problems.js';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Telephony API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <noscript>The reference needs JavaScript; the raw spec is at <a href="/openapi.yaml">/openapi.yaml</a>.</noscript>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/openapi.json', dom_id: '#reference', deepLinking: true, docExpansion: 'none',
    });
  </script>
</body>
</html>`;

/** A Host header as clients send it (a name or an address, and a port): anything else is not echoed into the spec. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The spec as served at one address: its `servers` entry is that address, so "Try it out" calls this server. */
class ServedSpec {
  private readonly byBase = new Map<string, { json: string; yaml: string }>();
  private readonly document = loadSpec().document;
  private readonly yaml = loadSpec().yaml;

  constructor(private readonly publicUrl: string | null) {}

  /** The JSON and YAML for a request (PUBLIC_URL, else the scheme and Host it came with). */
  for(req: Request): { json: string; yaml: string } {
    const host = req.get('host') ?? '';
    const base = this.publicUrl ?? (HOST.test(host) ? `${req.protocol}://${host}` : 'http://localhost:3000');
    let served = this.byBase.get(base);
    if (!served) {
      served = {
        json: JSON.stringify({ ...this.document, servers: [{ url: base }] }),
        yaml: this.yaml.replace(/^servers:\n(?: {2}- url: .*\n)+/m, `servers:\n  - url: ${base}\n`),
      };
      // A few addresses in practice; a client inventing Host headers gets its copy made each time.
      if (this.byBase.size < 16) this.byBase.set(base, served);
    }
    return served;
  }
}

export function mountSystemRoutes(
  app: Express,
  readiness: Readiness,
  registry: Registry,
  publicUrl: string | null,
): void {
  const spec = new ServedSpec(publicUrl);
  app.get('/', (_req, res) => res.redirect(302, '/docs'));
  app.get('/openapi.json', (req, res) => void res.type('application/json').send(spec.for(req).json));
  app.get('/openapi.yaml', (req, res) => void res.type('application/yaml').send(spec.for(req).yaml));
  app.get('/docs', (_req, res) => void res.type('text/html').send(DOCS_PAGE));
  app.use('/docs/assets', express.static(swaggerUiDir, { index: false, maxAge: '1h' }));
  mountProblemPages(app);
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (req, res) => {
    const reason = await readiness.reason();
    // Answered here, not through the error middleware: not being ready is an expected state, logged by Readiness
    // when it changes, never as a failed request.
    if (reason)
      return void res
        .status(503)
        .type('application/problem+json')
        .send(problemBody(errors.notReady(reason), req.id));
    res.json({ status: 'ok', database: 'ok', ...(readiness.hasLink ? { carrier: 'ok' as const } : {}) });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
}
