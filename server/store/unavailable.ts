// Which errors of a statement mean the database did not answer, rather than that the request was wrong: the API
// answers those 503 service_unavailable with Retry-After (http/problem.ts), not 500.
import { StatementDeadlineError } from './named-statements.js';

/** Node's errors of a connection that failed or broke, and PostgreSQL's SQLSTATEs of a server going away. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const SHUTTING_DOWN = new Set(['57P01', '57P02', '57P03']);
/** node-postgres's own: a connection that ended under a query, and the pool's wait for a connection given up. */
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect)/;

/**
 * The database did not answer: unreachable, a connection broken or silent past its statement deadline, the pool's
 * wait given up, the server shutting down (SQLSTATE class 08 too). A fault of the moment, not of the request, which
 * may be tried again: looked for down the error's `cause`s.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || SHUTTING_DOWN.has(code) || code.startsWith('08')))
      return true;
    if (e instanceof StatementDeadlineError || UNAVAILABLE_MESSAGES.test(e.message)) return true;
  }
  return false;
}
