// The pages a problem's `type` points to: /problems/{code} explains one code and its remedy, /problems lists them.
// HTML by default (a link followed in a browser); JSON when the request prefers application/json.
import type { Express, Request, Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { CATALOGUE, errors, problemTypeUri, type ErrorCode } from '../errors.js';

type ProblemType = components['schemas']['ProblemType'];

const problemTypes: ProblemType[] = (Object.keys(CATALOGUE) as ErrorCode[]).map((code) => ({
  code,
  type: problemTypeUri(code),
  ...CATALOGUE[code],
}));
const byCode = new Map(problemTypes.map((p) => [p.code as string, p]));

const escape = (text: string | number) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escape(title)} · Telephony API</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <style>body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}
  td,th{text-align:left;vertical-align:top;padding:.25rem .5rem}</style>
</head>
<body>
  <nav><a href="/problems">All problem codes</a> · <a href="/docs">API reference</a></nav>
  <main>
${body}
  </main>
</body>
</html>`;
}

function problemPage(p: ProblemType): string {
  return page(
    p.code,
    `    <h1>${escape(p.title)}</h1>
    <p><code>${escape(p.code)}</code> · HTTP ${escape(p.status)}</p>
    <h2>What it means</h2>
    <p>${escape(p.explanation)}</p>
    <h2>What to do</h2>
    <p>${escape(p.remedy)}</p>
    <p>The problem's <code>detail</code> says what happened in your request; quote its <code>request_id</code>
    when asking for help.</p>`,
  );
}

function listPage(): string {
  const rows = problemTypes.map(
    (p) =>
      `      <tr><td><a href="${escape(p.type)}"><code>${escape(p.code)}</code></a></td>` +
      `<td>${escape(p.status)}</td><td>${escape(p.title)}</td><td>${escape(p.explanation)}</td></tr>`,
  );
  return page(
    'Problem codes',
    `    <h1>Problem codes</h1>
    <p>Every error is an RFC 9457 problem whose <code>code</code> is one of these; its <code>type</code> links here.</p>
    <table>
      <tr><th>code</th><th>status</th><th>title</th><th>meaning</th></tr>
${rows.join('\n')}
    </table>`,
  );
}

function answer(req: Request, res: Response, json: unknown, html: () => string): void {
  res.vary('Accept');
  if (req.accepts(['text/html', 'application/json']) === 'application/json') res.json(json);
  else res.type('text/html').send(html());
}

export function mountProblemPages(app: Express): void {
  app.get('/problems', (req, res) => answer(req, res, { data: problemTypes }, listPage));
  app.get('/problems/:code', (req, res, next) => {
    const problem = byCode.get(req.params.code);
    if (!problem) return next(errors.noSuchProblemCode(req.params.code));
    answer(req, res, problem, () => problemPage(problem));
  });
}
