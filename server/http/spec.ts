// Loads spec/openapi.yaml once: the document served to users, and the operation table routes are built from.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { operations } from '../../generated/openapi.js';

export type OperationId = keyof operations;

const SPEC_PATH = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));
/** Compiled (dist/), the build has parsed the YAML already into this file: JSON reads ten times faster at start. */
const PARSED_PATH = import.meta.url.endsWith('.js')
  ? fileURLToPath(new URL('../../spec/openapi.json', import.meta.url))
  : null;
const CHECKED_PATH = import.meta.url.endsWith('.js')
  ? fileURLToPath(new URL('../../spec/openapi-checked.json', import.meta.url))
  : null;

type Schema = Record<string, any>;

export interface OperationInfo {
  operationId: OperationId;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The OpenAPI path, e.g. /v1/messages/{sid}. */
  path: string;
  /** The same path in Express syntax, e.g. /v1/messages/:sid. */
  expressPath: string;
  /** The request body's schema with local $refs resolved, when the operation takes a body. */
  bodySchema: Schema | null;
  /** Whether the operation needs no API key. */
  public: boolean;
}

export interface LoadedSpec {
  document: Schema;
  yaml: string;
  json: string;
  operations: OperationInfo[];
  /**
   * What the build did for express-openapi-validator (scripts/build.mjs, server/http/validator-start.ts): checked
   * the spec against the OpenAPI meta-schema, and found that bundling its `$ref`s changes nothing. Both false when
   * running from source: the validator does both at start.
   */
  checkedAtBuild: { metaSchema: boolean; bundled: boolean };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

let cached: LoadedSpec | null = null;

export function loadSpec(): LoadedSpec {
  if (cached) return cached;
  const yaml = fs.readFileSync(SPEC_PATH, 'utf8');
  const json = PARSED_PATH ? fs.readFileSync(PARSED_PATH, 'utf8') : null;
  // The YAML parser is loaded only when needed: loading it costs the compiled server's start a little too.
  const document = (
    json ? JSON.parse(json) : (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(yaml)
  ) as Schema;
  const ops: OperationInfo[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const body = op.requestBody ? resolve(document, op.requestBody) : null;
      const media = body?.content?.['application/json'] ?? body?.content?.['application/x-www-form-urlencoded'];
      ops.push({
        operationId: op.operationId,
        method,
        path,
        expressPath: path.replace(/\{([^}]+)\}/g, ':$1'),
        bodySchema: media?.schema ? deref(document, media.schema) : null,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  const checked = CHECKED_PATH ? (JSON.parse(fs.readFileSync(CHECKED_PATH, 'utf8')) as Partial<Schema>) : {};
  cached = {
    document,
    yaml,
    json: json ?? JSON.stringify(document),
    operations: ops,
    checkedAtBuild: { metaSchema: checked.metaSchema === true, bundled: checked.bundled === true },
  };
  return cached;
}

function resolve(document: Schema, node: Schema): Schema {
  let current = node;
  while (current && typeof current.$ref === 'string') {
    const parts = current.$ref.replace(/^#\//, '').split('/');
    current = parts.reduce<Schema>((acc, part) => acc?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return current;
}

/** Resolves local $refs throughout a schema (the spec's request schemas are not recursive). */
function deref(document: Schema, node: unknown, depth = 0): any {
  if (depth > 32 || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((n) => deref(document, n, depth + 1));
  const resolved = resolve(document, node);
  return Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, deref(document, v, depth + 1)]));
}

const matchers = new Map<OperationInfo, RegExp>();

/** The operation a method and path address, if the spec has one. */
export function findOperation(method: string, path: string): OperationInfo | undefined {
  const m = method.toLowerCase();
  for (const op of loadSpec().operations) {
    if (op.method !== m) continue;
    let re = matchers.get(op);
    if (!re) {
      re = new RegExp('^' + op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '/?$');
      matchers.set(op, re);
    }
    if (re.test(path)) return op;
  }
  return undefined;
}

/**
 * The name of the path parameter left empty in `path`, when `path` is an operation's path with its last
 * parameter blank (`/v1/lookups/phone-numbers/`) and no operation of its own. Such a request is a client
 * mistake about that parameter (400), not a request for a missing resource (404).
 */
export function emptyTrailingParameter(method: string, path: string): string | undefined {
  if (findOperation(method, path)) return undefined;
  const parent = path.replace(/\/+$/, '');
  const m = method.toLowerCase();
  for (const op of loadSpec().operations) {
    const last = /\/\{([^}]+)\}$/.exec(op.path);
    if (op.method !== m || !last) continue;
    const parentPattern = op.path.slice(0, last.index);
    const re = new RegExp(
      '^' + parentPattern.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '$',
    );
    if (re.test(parent)) return last[1];
  }
  return undefined;
}
