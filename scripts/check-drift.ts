// Fails when generated/ differs from what spec/openapi.yaml generates (run `npm run generate` to fix).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const committed = path.join(root, 'generated/openapi.ts');
const fresh = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'drift-')), 'openapi.ts');
execFileSync(path.join(root, 'node_modules/.bin/openapi-typescript'), ['spec/openapi.yaml', '--read-write-markers', '--default-non-nullable', 'false', '-o', fresh], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const want = fs.readFileSync(fresh, 'utf8');
const have = fs.existsSync(committed) ? fs.readFileSync(committed, 'utf8') : '';
if (want !== have) {
  console.error('generated/openapi.ts is out of date with spec/openapi.yaml: run `npm run generate` and commit the result.');
  process.exit(1);
}
console.log('drift check: generated/ matches spec/openapi.yaml');
