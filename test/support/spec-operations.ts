// The operations of the spec as test tables: every /v1 operation with a concrete path to call.
import { loadSpec, type OperationInfo } from '../../server/http/spec.js';

/** A concrete path for an operation; path parameters get placeholder values (auth is checked before they are). */
export function samplePath(op: OperationInfo, values: Record<string, string> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x'));
}

export const v1Operations = (): OperationInfo[] => loadSpec().operations.filter((op) => op.path.startsWith('/v1/'));

/** Calls an operation with the example values its spec gives (a request the validator accepts). */
/** The path parameters and JSON body of a valid request, from the examples in the spec. */
export function exampleRequest(op: OperationInfo): { params: Record<string, string>; body: any } {
  const doc = loadSpec().document;
  const item = doc.paths[op.path][op.method];
  const params: Record<string, string> = {};
  for (const p of [...(doc.paths[op.path].parameters ?? []), ...(item.parameters ?? [])]) {
    const param = p.$ref ? resolveRef(doc, p.$ref) : p;
    if (param.in !== 'path') continue;
    const schema = param.schema?.$ref ? resolveRef(doc, param.schema.$ref) : param.schema;
    params[param.name] = String(param.example ?? schema?.example ?? 'x');
  }
  const requestBody =
    item.requestBody && (item.requestBody.$ref ? resolveRef(doc, item.requestBody.$ref) : item.requestBody);
  return { params, body: requestBody?.content['application/json'].example };
}

/** Calls an operation with the example values its spec gives (a request the validator accepts). */
export async function callWithExample(
  baseUrl: string,
  op: OperationInfo,
  headers: Record<string, string>,
): Promise<Response> {
  const { params, body } = exampleRequest(op);
  return fetch(baseUrl + samplePath(op, params), {
    method: op.method.toUpperCase(),
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
}

function resolveRef(doc: any, ref: string): any {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((acc, part) => acc[part], doc);
}
