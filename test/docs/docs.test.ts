// The README's and the guides' commands and code, run as a reader runs them against a real server, so they cannot
// rot. Every ```sh block runs in order in one bash per document (variables carry over, as in a terminal), under
// `set -eo pipefail` and with curl failing on an HTTP error (a .curlrc with --fail-with-body), so a command that
// fails fails the test. Every ```ts block is type-checked (`@telephony-api/client` mapped to client/) and run with
// tsx. A block that must not run says so in an HTML comment right above it (`<!-- not run: why -->`), and the
// test counts them per document, so nothing is skipped silently; a block in any other language must be so marked.
// Other markers: `<!-- background: wait for "TEXT" -->` waits until the block's output shows TEXT (a server it
// started), `<!-- expect: "TEXT" -->` asserts the block's output holds TEXT, and `<!-- expect problem: "TEXT" -->`
// runs a block that shows an error answer with curl's defaults (no failure on an HTTP error) and asserts the same.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { ROOT } from '../support/run.js';
import { waitUntil } from '../support/wait.js';

const run = promisify(execFile);

/** Each document and the number of its blocks marked `not run`. */
const NOT_RUN: Record<string, number> = {
  'README.md': 1,
  'docs/messages.md': 0,
  'docs/numbers.md': 0,
  'docs/verify.md': 0,
  'docs/lookups.md': 0,
  'docs/calls.md': 0,
  'docs/proxy.md': 0,
  'docs/dashboard.md': 0,
  'docs/smpp.md': 1,
  'docs/operations.md': 2,
  'docs/architecture.md': 0,
  'docs/benchmarks.md': 0,
};

interface Block {
  doc: string;
  line: number;
  lang: string;
  code: string;
  marker: { kind: 'not run' | 'background' | 'expect' | 'expect problem'; text: string } | null;
}

function blocksOf(doc: string): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && /^\s*```\s*$/.test(line));
    if (end < 0) throw new Error(`${doc}:${i + 1}: a code block that never closes`);
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const comment =
      before >= 0 ? /^<!-- (not run|background|expect|expect problem): (.+) -->$/.exec(lines[before].trim()) : null;
    const marker = comment ? { kind: comment[1] as NonNullable<Block['marker']>['kind'], text: comment[2] } : null;
    const code = lines.slice(i + 1, end).join('\n');
    blocks.push({ doc, line: i + 1, lang: open[1], code: dedent(code), marker });
    i = end;
  }
  return blocks;
}

/** A block inside a list item is indented; bash and tsc read it as written at the margin. */
function dedent(code: string): string {
  const indent = Math.min(
    ...code
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => /^ */.exec(l)![0].length),
  );
  return code
    .split('\n')
    .map((l) => l.slice(indent))
    .join('\n');
}

/** The quoted text of a `background` or `expect` marker. */
function quoted(block: Block): string {
  const match = /(["'])(.+)\1$/.exec(block.marker!.text);
  if (!match) throw new Error(`${block.doc}:${block.line}: the marker names no "TEXT"`);
  return match[2];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface Reader {
  api: string;
  key: string;
  secret: string;
  /** The receiver's port in place of the docs' 4000 (another test may hold 4000). */
  port: number;
}

/** The reader's values where the docs show placeholders: what the first start printed, the server's address. */
function substitute(code: string, reader: Reader): string {
  return code
    .replaceAll('http://127.0.0.1:3000', reader.api)
    .replaceAll('tk_...', reader.key)
    .replaceAll('whsec_...', reader.secret)
    .replaceAll('127.0.0.1:4000', `127.0.0.1:${reader.port}`)
    .replaceAll('--port 4000', `--port ${reader.port}`)
    .replaceAll('listen(4000,', `listen(${reader.port},`);
}

interface Ran {
  block: Block;
  /** What the block printed so far (a background job's output keeps growing). */
  output: () => string;
}

const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

/**
 * Runs a document's blocks in order: sh in one bash (detached, so its background jobs die with its process group),
 * ts with tsx. `env` is what the reader has exported before (the quick start's variables, for a guide).
 */
async function runDocument(doc: string, reader: Reader, env: Record<string, string>): Promise<Ran[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-test-'));
  fs.writeFileSync(path.join(dir, '.curlrc'), '--fail-with-body\n--show-error\n');
  fs.mkdirSync(path.join(dir, 'home'));
  writeTsProject(dir);
  const bash = spawn('bash', ['--noprofile', '--norc'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), CURL_HOME: dir, ...env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let said = '';
  let exited: number | null = null;
  if (bash.pid !== undefined) groups.add(bash.pid);
  bash.stdout.on('data', (d) => (said += d));
  bash.stderr.on('data', (d) => (said += d));
  bash.on('exit', (code) => (exited = code ?? -1));
  bash.stdin.write('set -eo pipefail\n');
  const results: Ran[] = [];
  try {
    for (const [index, block] of blocksOf(doc).entries()) {
      if (block.marker?.kind === 'not run') continue;
      const where = `${block.doc}:${block.line}`;
      if (block.lang === 'ts') {
        const file = path.join(dir, `block-${index}.mts`);
        fs.writeFileSync(file, substitute(block.code, reader));
        const readerEnv = { API: reader.api, KEY: reader.key, WHSEC: reader.secret, ...env };
        const ran = await runTs(file, dir, readerEnv);
        if (ran.code !== 0)
          throw new Error(`${where} failed (exit ${ran.code}):\n${block.code}\n--- output:\n${ran.output}`);
        results.push({ block, output: () => ran.output });
        continue;
      }
      if (block.lang !== 'sh' && block.lang !== 'bash') {
        throw new Error(`${where}: a \`\`\`${block.lang} block, neither run nor marked <!-- not run: why -->`);
      }
      const script = path.join(dir, `block-${index}.sh`);
      const out = path.join(dir, `out-${index}`);
      fs.writeFileSync(script, substitute(block.code, reader));
      // A block that shows an error answer runs with curl's defaults (no failure on an HTTP error).
      const curlHome = block.marker?.kind === 'expect problem' ? path.join(dir, 'plain') : dir;
      bash.stdin.write(`CURL_HOME=${curlHome} source ${script} > ${out} 2>&1\necho "__done__ ${index}"\n`);
      const done = await waitUntil(async () => exited !== null || said.includes(`__done__ ${index}\n`), 90_000, where);
      if (exited !== null || !done) {
        throw new Error(`${where} failed (exit ${exited}):\n${block.code}\n--- its output:\n${read(out)}${said}`);
      }
      if (block.marker?.kind === 'background') {
        const text = quoted(block);
        await waitUntil(async () => read(out).includes(text), 30_000, `${where} to print "${text}"`);
      }
      results.push({ block, output: () => read(out) });
    }
    return results;
  } finally {
    stopGroup(bash.pid);
  }
}

/** Process groups this file started (a bash and its background jobs, a ts block): stopped even after a timeout. */
const groups = new Set<number>();

function stopGroup(pid: number | undefined): void {
  if (pid === undefined || !groups.delete(pid)) return;
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

/** Runs a ts block with tsx in a process group of its own, so that what it started dies with it. */
function runTs(
  file: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [file], { cwd, env: { PATH: process.env.PATH, ...env }, detached: true });
    if (child.pid !== undefined) groups.add(child.pid);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => stopGroup(child.pid), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      stopGroup(child.pid);
      resolve({ code, output });
    });
  });
}

function read(file: string): string {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

/** A project for the ts blocks: the app's import of the client package resolves to client/ here. */
function writeTsProject(dir: string): void {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      typeRoots: [path.join(ROOT, 'node_modules/@types')],
      types: ['node'],
      paths: { '@telephony-api/client': [path.join(ROOT, 'client/index.ts')] },
    },
    include: ['*.mts'],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
}

/** Asserts each `expect` marker of a document's run. */
function checkExpectations(results: Ran[]): void {
  for (const { block, output } of results) {
    if (block.marker?.kind === 'expect' || block.marker?.kind === 'expect problem') {
      expect(output(), `${block.doc}:${block.line}`).toContain(quoted(block));
    }
  }
}

describe('the README and the guides, run as a reader runs them', () => {
  let t: TestServer;
  let port: number;
  beforeAll(async () => {
    // Calls play 20 times faster and addresses are checked at once, so the guides' waits are short.
    t = await startTestServer('sqlite', { SANDBOX_CALL_SPEED: '20', ADDRESS_VERIFICATION_DELAY: '100ms' });
    port = await freePort();
  });
  afterAll(async () => {
    for (const pid of [...groups]) stopGroup(pid);
    await t?.stop();
  });

  it('keeps the README within 10 KB', () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(10 * 1024);
  });

  it('marks exactly the counted blocks not run, in every document', () => {
    for (const doc of Object.keys(NOT_RUN)) {
      const marked = blocksOf(doc).filter((b) => b.marker?.kind === 'not run');
      expect(marked.length, `${doc}: ${marked.map((b) => `line ${b.line}`).join(', ')}`).toBe(NOT_RUN[doc]);
    }
  });

  it('type-checks every ts block against the client', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-tsc-'));
    writeTsProject(dir);
    const blocks = Object.keys(NOT_RUN)
      .flatMap(blocksOf)
      .filter((b) => b.lang === 'ts' && b.marker?.kind !== 'not run');
    blocks.forEach((b, i) =>
      fs.writeFileSync(path.join(dir, `${path.basename(b.doc, '.md')}-${b.line}-${i}.mts`), b.code),
    );
    const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
    const checked = await run(tsc, ['-p', dir]).catch((err: { stdout: string }) => ({
      stdout: err.stdout,
      failed: true,
    }));
    expect(checked.stdout).toBe('');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    'README: the quick start ends in a delivered message and a webhook the receiver verified',
    { timeout: 120_000 },
    async () => {
      // The key and secret the first start prints (server/main.ts prints these).
      const first = t.server.createdKey!;
      const reader = { api: t.url, key: first.api_key, secret: first.webhook_secret, port };
      const results = await runDocument('README.md', reader, {});
      const receiver = results.find((r) => r.block.marker?.kind === 'background')!;
      const status = results.findLast((r) => r.block.lang === 'sh')!;
      expect(status.output().trim()).toBe('"status":"delivered"');
      await waitUntil(async () => /verified message\.delivered SM[0-9a-f]{32} delivered/.test(receiver.output()));
      expect(receiver.output()).not.toContain('refused');
      checkExpectations(results);
    },
  );

  const guides = Object.keys(NOT_RUN).filter((doc) => doc !== 'README.md');
  it.each(guides)('%s: every command succeeds against the server', { timeout: 120_000 }, async (doc) => {
    // A reader who did the quick start, on an account of their own so guides do not see each other's numbers: it holds
    // a number as the quick start's (415, taking SMS and calls), which a guide's own numbers come beside.
    const account = await t.newAccount(doc);
    const { data } = await account.client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: {
        path: { country: 'US' },
        query: { area_code: '415', page_size: 1, sms_enabled: true, voice_enabled: true },
      },
    });
    const held = await account.client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: data!.data[0].phone_number },
    });
    expect(held.response.status).toBe(201);
    const reader = { api: t.url, key: account.apiKey, secret: account.webhookSecret, port };
    // DATA_DIR: the CLI opens the server's database, as the reader's opens ./data.
    const env = { API: t.url, KEY: account.apiKey, WHSEC: account.webhookSecret, DATA_DIR: t.config.dataDir };
    const results = await runDocument(doc, reader, env);
    checkExpectations(results);
  });
});
