// Public routes: the spec, its reference page, the problem pages, health, readiness and metrics. None needs an API key.
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import type { Store } from '../store/db.js';
import { errors } from '../errors.js';
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

export function mountSystemRoutes(app: Express, store: Store, registry: Registry): void {
  const spec = loadSpec();
  app.get('/openapi.json', (_req, res) => void res.type('application/json').send(spec.json));
  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(spec.yaml));
  app.get('/docs', (_req, res) => void res.type('text/html').send(DOCS_PAGE));
  app.use('/docs/assets', express.static(swaggerUiDir, { index: false, maxAge: '1h' }));
  mountProblemPages(app);
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res, next) => {
    try {
      await store.ping();
    } catch {
      return next(errors.databaseUnavailable());
    }
    res.json({ status: 'ok', database: 'ok' });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
}
