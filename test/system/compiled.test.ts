// The compiled build as `npm start` runs it: built once here, started from dist/ without tsx, it answers /readyz and
// serves what needs its files (the spec, the dashboard's views, the webhook sender's thread, the migrations).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyClient } from '../../client/index.js';
import { testEnv } from '../support/server.js';
import { freePort } from '../support/prism.js';
import { ROOT, spawnServer, type ServerProcess } from '../support/run.js';
import { waitUntil } from '../support/wait.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { FAST_PIPELINE, waitForStatus } from '../support/messaging.js';
import { FAST_CALLS } from '../calls/support.js';

const API_KEY = 'tk_compiled_test_key_0123456789abcd';

// The build is the same for both engines; SQLite is the one `npm start` uses out of the box.
describe('the compiled server (npm start)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-compiled-'));
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let url: string;
  beforeAll(async () => {
    const built = await new Promise<number | null>((resolve) => {
      const build = spawn(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
      build.once('exit', resolve);
    });
    expect(built).toBe(0);
    receiver = await startReceiver();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawnServer(
      testEnv('sqlite', dataDir, { ...FAST_PIPELINE, ...FAST_CALLS, PORT: String(port), TELEPHONY_API_KEY: API_KEY }),
      'scripts/start.mjs',
    );
  }, 240_000);
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
    await server.exited;
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs from dist/, answers /readyz 200, and sends a message with its status callback', async () => {
    await waitUntil(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, 'the compiled server ready');
    // Started without building again (dist/ is current), and without tsx: no TypeScript file could load.
    expect(server.output()).not.toContain('Building the server');
    const client = createTelephonyClient({ baseUrl: url, apiKey: API_KEY });
    const search = await client.GET('/v1/available-phone-numbers/{country}/Local', {
      params: { path: { country: 'US' }, query: { page_size: 1 } },
    });
    const held = await client.POST('/v1/incoming-phone-numbers', {
      body: { PhoneNumber: search.data!.data[0].phone_number },
    });
    const sent = await client.POST('/v1/messages', {
      body: { from: held.data!.phone_number, to: '+14155550199', body: 'hi', status_callback: `${receiver.url}/s` },
    });
    expect(sent.response.status).toBe(201);
    await waitForStatus(client, sent.data!.sid, 'delivered');
    await receiver.waitFor((r) => r.some((w) => w.json?.type === 'message.delivered'));
  });

  it("renders a call's recording on the renderer's thread, a module of dist/ too", async () => {
    await waitUntil(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, 'the compiled server ready');
    const client = createTelephonyClient({ baseUrl: url, apiKey: API_KEY });
    const { data: numbers } = await client.GET('/v1/incoming-phone-numbers');
    const call = await client.POST('/v1/calls', {
      body: {
        from: numbers!.data[0].phone_number,
        to: '+14155550198',
        record: true,
        twiml: '<Response><Say>Recorded from the bundle</Say></Response>',
      },
    });
    const sid = call.data!.sid;
    const recordings = () => client.GET('/v1/calls/{sid}/recordings', { params: { path: { sid } } });
    const completed = await waitUntil(
      async () => (await recordings()).data?.data.find((r) => r.status === 'completed'),
      30_000,
      'the recording completed',
    );
    const media = await fetch(`${url}/v1/recordings/${completed.sid}/media`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(media.status).toBe(200);
    expect(
      Buffer.from(await media.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe('RIFF');
  });

  it("skips at start the validator's spec checks the build did, and rejects an invalid request", async () => {
    const checked = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/spec/openapi-checked.json'), 'utf8'));
    expect(checked).toEqual({ metaSchema: true, bundled: true });
    await waitUntil(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, 'the compiled server ready');
    const client = createTelephonyClient({ baseUrl: url, apiKey: API_KEY });
    const sent = await client.POST('/v1/messages', { body: { from: '+14155550100', to: 'not a number', body: 'hi' } });
    expect(sent.response.status).toBe(400);
    // The validator's answer: the field that breaks the spec's pattern.
    expect((sent.error as { errors?: { field: string }[] }).errors?.map((e) => e.field)).toEqual(['to']);
  });

  it('serves the spec and the dashboard pages from its copied files', async () => {
    expect((await fetch(`${url}/openapi.yaml`)).status).toBe(200);
    const page = await fetch(`${url}/dashboard/sign-in`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form');
    const css = await fetch(`${url}/dashboard/assets/dashboard.css`);
    expect(css.status).toBe(200);
    expect(await css.text()).toBe(fs.readFileSync(path.join(ROOT, 'server/dashboard/assets/dashboard.css'), 'utf8'));
  });

  it('builds again at the next start when dist/ has its stamp but not its bundle', async () => {
    const bundle = path.join(ROOT, 'dist/server/main.bundle.js');
    const { staleReason } = (await import(path.join(ROOT, 'scripts/build.mjs'))) as {
      staleReason: () => string | null;
    };
    expect(staleReason()).toBeNull();
    fs.renameSync(bundle, `${bundle}.aside`);
    try {
      expect(staleReason()).toBe('server/main.bundle.js is missing');
    } finally {
      fs.renameSync(`${bundle}.aside`, bundle);
    }
    expect(staleReason()).toBeNull();
  });

  // npm start runs one bundled module: each of our modules in it finds its files at its own place in dist/ (the
  // tests above: the spec, the views, the CSS, the webhook sender's thread), and none is loaded from dist/ apart.
  it('runs the bundle, which holds our modules with their own places in dist/', () => {
    const bundle = fs.readFileSync(path.join(ROOT, 'dist/server/main.bundle.js'), 'utf8');
    expect(fs.readFileSync(path.join(ROOT, 'scripts/start.mjs'), 'utf8')).toContain(
      'await import(`../dist/${BUNDLE}`)',
    );
    expect(bundle).toContain('new URL("./dashboard/index.js", import.meta.url).href');
    expect(bundle).toContain('new URL("./webhooks/sender.js", import.meta.url).href');
    expect(bundle).not.toContain('import.meta.dirname');
    expect(bundle).not.toMatch(/from ["']\.\.?\//);
  });

  // server/http/ changes inner modules of express-openapi-validator, which it imports by their paths in the package.
  // The changes reach the validator only if the bundle holds one copy of each, the one the validator itself uses: a
  // second copy (or the validator loaded from node_modules beside the bundle) would run the library unchanged.
  it('holds express-openapi-validator once, with the inner modules that server/http/ changes', () => {
    const bundle = fs.readFileSync(path.join(ROOT, 'dist/server/main.bundle.js'), 'utf8');
    expect(bundle).not.toMatch(/(from |require\()["']express["'/]/);
    expect(bundle).not.toContain('"express-openapi-validator"');
    // Nor one of its inner modules reached at run time (through the validator's own require, say).
    expect(bundle).not.toMatch(/\(["']\.\/(middlewares|framework)\//);
    const defined = (name: string) => bundle.match(new RegExp(`\\bexports\\.${name} = ${name}\\d*;`, 'g'))?.length;
    const changed = ['applyOpenApiMetadata', 'useAjvCache', 'ResponseValidator', 'RequestValidator'];
    for (const name of [...changed, 'SchemaPreprocessor', 'OpenAPISchemaValidator', 'OpenAPIFramework', 'BadRequest'])
      expect(defined(name), name).toBe(1);
  });
});
