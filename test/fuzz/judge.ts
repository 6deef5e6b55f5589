// What every answer of the fuzz suite must be: no 5xx, and every error a problem+json whose code is in the spec.
import { loadSpec } from '../../server/http/spec.js';
import type { FuzzRequest } from './requests.js';
import type { FuzzResponse } from './send.js';

const PROBLEM_CODES = new Set<string>(loadSpec().document.components.schemas.ProblemCode.enum);

/** Operations that declare a 501 answer (calls, proxy): `not_implemented` is their documented answer today. */
const DECLARES_501 = new Set(
  loadSpec()
    .operations.filter((op) => loadSpec().document.paths[op.path][op.method].responses?.['501'])
    .map((op) => op.operationId as string),
);

/** What is wrong with an answer (empty when nothing). */
export function judge(request: FuzzRequest, answer: FuzzResponse | Error): string[] {
  if (answer instanceof Error) return [`no answer: ${answer.message}`];
  const problems: string[] = [];
  const { status } = answer;
  if (status >= 400) problems.push(...problemShape(answer));
  if (status >= 500) {
    const documented = status === 501 && DECLARES_501.has(request.operationId) && /not_implemented/.test(answer.body);
    if (!documented) problems.push(`answered ${status}`);
  }
  if (request.auth !== 'key' && request.path.startsWith('/v1/') && status !== 401)
    problems.push(`answered ${status} without a valid key, not 401`);
  if (request.expect === 'reject' && status < 400) problems.push(`accepted (${status}) a malformed request`);
  return problems;
}

function problemShape(answer: FuzzResponse): string[] {
  if (!/^application\/problem\+json\b/.test(answer.contentType))
    return [`content-type ${answer.contentType || 'none'}`];
  let body: any;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return ['a body that is not JSON'];
  }
  const out: string[] = [];
  if (!PROBLEM_CODES.has(body?.code)) out.push(`code ${JSON.stringify(body?.code)} is not in ProblemCode`);
  if (body?.status !== answer.status) out.push(`body status ${body?.status} is not the HTTP status`);
  if (body?.type !== `/problems/${body?.code}`) out.push(`type ${JSON.stringify(body?.type)}`);
  if (typeof body?.title !== 'string' || typeof body?.request_id !== 'string') out.push('no title or request_id');
  return out;
}
