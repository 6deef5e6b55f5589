// The client as a package: `npm pack` in client/ builds it and makes a tarball, which an empty project outside the
// repository installs, type-checks a usage example against, and runs against the real server. Offline: its one
// dependency, openapi-fetch (and what that needs), is packed from this repository's node_modules beside it, so the
// test talks to no registry.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestServer } from './support/server.js';
import { giveNumber } from './support/numbers.js';
import { ROOT } from './support/run.js';

const run = promisify(execFile);

// No @types/node in the app: the package's types need none.
const EXAMPLE = `import { createTelephonyClient, verifyWebhook, type WebhookEvent } from '@telephony-api/client';
declare const process: { argv: string[] };

const [baseUrl, apiKey, from] = process.argv.slice(2);
const client = createTelephonyClient({ baseUrl, apiKey });
const { data, error } = await client.POST('/v1/messages', { body: { from, to: '+14155550123', body: 'packaged' } });
if (!data) throw new Error(JSON.stringify(error));
const sid: string = data.sid;
const form = createTelephonyClient({ baseUrl, apiKey, encoding: 'form' });
const fetched = await form.GET('/v1/messages/{sid}', { params: { path: { sid } } });
const describe = (event: WebhookEvent) => (event.type === 'message.delivered' ? event.data.to : event.type);
const verify = typeof verifyWebhook;
console.log(JSON.stringify({ sid, fetched: fetched.data?.sid, describe: typeof describe, verify }));
`;

describe('the client package', () => {
  const t = useTestServer({ engine: 'sqlite' });
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
  afterAll(() => fs.rmSync(project, { recursive: true, force: true }));
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  const write = (file: string, content: string) => fs.writeFileSync(path.join(project, file), content);

  /** Packs `dirs` into the project; the tarballs' paths. */
  const pack = async (cwd: string, dirs: string[] = []) => {
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', project, ...dirs], { cwd });
    return stdout
      .trim()
      .split('\n')
      .map((file) => path.join(project, file));
  };

  it(
    'packs, installs into an empty project, type-checks an example and runs it against the server',
    { timeout: 120_000 },
    async () => {
      const [tarball] = await pack(path.join(ROOT, 'client'));
      write('package.json', JSON.stringify({ name: 'app', private: true, type: 'module' }));
      const fetchPackage = path.join(ROOT, 'node_modules/openapi-fetch');
      const needs = Object.keys(
        JSON.parse(fs.readFileSync(path.join(fetchPackage, 'package.json'), 'utf8')).dependencies,
      );
      const dependencies = await pack(project, [
        fetchPackage,
        ...needs.map((name) => path.join(ROOT, 'node_modules', name)),
      ]);
      await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', ...dependencies, tarball], {
        cwd: project,
      });
      const installed = path.join(project, 'node_modules/@telephony-api/client');
      expect(JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).dependencies).toEqual({
        'openapi-fetch': '0.17.0',
      });
      expect(fs.existsSync(path.join(installed, 'dist/client/index.d.ts'))).toBe(true);

      write('app.ts', EXAMPLE);
      write('tsconfig.json', JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files: ['app.ts'] }));
      // The repository's TypeScript compiles the app; the app sees only what the package ships.
      await run(tsc, ['-p', 'tsconfig.json'], { cwd: project });

      const account = await t.newAccount();
      const from = await giveNumber(t, account);
      const ran = await run('node', ['out/app.js', t.url, account.apiKey, from], { cwd: project });
      const out = JSON.parse(ran.stdout);
      expect(out).toEqual({
        sid: expect.stringMatching(/^SM/),
        fetched: out.sid,
        describe: 'function',
        verify: 'function',
      });
    },
  );

  it('refuses, at compile time, a body the spec does not allow', async () => {
    write(
      'wrong.ts',
      "import { createTelephonyClient } from '@telephony-api/client';\n" +
        "const client = createTelephonyClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });\n" +
        "await client.POST('/v1/messages', { body: { From: '+14155550100', to: '+14155550123' } });\n",
    );
    write(
      'wrong.json',
      JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, noEmit: true }, files: ['wrong.ts'] }),
    );
    const failed = await run(tsc, ['-p', 'wrong.json'], { cwd: project }).then(
      () => ({ stdout: 'compiled' }),
      (err: { stdout: string }) => err,
    );
    expect(failed.stdout).toMatch(
      /wrong\.ts\(3,\d+\): error TS2561: .*'From' does not exist.*Did you mean to write 'from'/,
    );
  });
});

const COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['ES2023', 'DOM'],
  types: [],
  strict: true,
  skipLibCheck: false,
  outDir: 'out',
};
