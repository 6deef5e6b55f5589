// Fails when generated/ differs from what spec/openapi.yaml generates (run `npm run generate` to fix), or
// docs/configuration.md from what server/config.ts generates (run `npm run docs:config` to fix).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_DOCS, renderConfigDocs } from './config-docs.js';

const root = path.resolve(import.meta.dirname, '..');
const committed = path.join(root, 'generated/openapi.ts');
// To stdout, where openapi-typescript is silent: its lint warnings are lint:spec's to report (with the ignore file,
// which openapi-typescript does not read), and npm test runs that first.
const want = execFileSync(
  path.join(root, 'node_modules/.bin/openapi-typescript'),
  ['spec/openapi.yaml', '--read-write-markers', '--default-non-nullable', 'false'],
  { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
);
const have = fs.existsSync(committed) ? fs.readFileSync(committed, 'utf8') : '';
if (want !== have) {
  console.error(
    'generated/openapi.ts is out of date with spec/openapi.yaml: run `npm run generate` and commit the result.',
  );
  process.exit(1);
}
console.log('drift check: generated/ matches spec/openapi.yaml');

const docs = path.join(root, CONFIG_DOCS);
if (!fs.existsSync(docs) || fs.readFileSync(docs, 'utf8') !== renderConfigDocs()) {
  console.error(
    `${CONFIG_DOCS} is out of date with server/config.ts: run \`npm run docs:config\` and commit the result.`,
  );
  process.exit(1);
}
console.log(`drift check: ${CONFIG_DOCS} matches server/config.ts`);
