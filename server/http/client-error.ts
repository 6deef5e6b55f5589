// Requests Node refuses before Express sees them (headers over 16 KB, a bad Content-Length, a malformed request
// line, a timeout): answered with a problem body like every other error, where the socket still takes one.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ApiError, errors } from '../errors.js';
import { problemBody } from './problem.js';

/** What llhttp's error codes mean, for the problem's detail; others are named by their code. */
const PARSE_ERRORS: Record<string, string> = {
  HPE_INVALID_CONTENT_LENGTH: 'The Content-Length header is not a valid length.',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length and Transfer-Encoding: chunked cannot both be sent.',
  HPE_INVALID_TRANSFER_ENCODING: 'The Transfer-Encoding header is not valid, or comes with a Content-Length.',
  HPE_INVALID_CHUNK_SIZE: 'A chunk size of the chunked body is not valid.',
  HPE_INVALID_METHOD: 'The request line has an unknown method.',
  HPE_INVALID_URL: 'The request line has an invalid URL.',
  HPE_INVALID_VERSION: 'The request line has an invalid HTTP version.',
  HPE_INVALID_HEADER_TOKEN: 'A header name is not valid.',
  HPE_LF_EXPECTED: 'A line of the request does not end in CRLF.',
};

/** The problem Node's own refusal of a request answers (its status is Node's: 400, 408, 413 or 431). */
export function clientErrorProblem(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return errors.headersTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.requestTimeout();
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.payloadTooLarge();
    case 'HPE_INVALID_EOF_STATE':
      // The client half-closed the connection inside the request: almost always inside its body.
      return errors.bodyCutShort();
    default: {
      const detail =
        (err.code && PARSE_ERRORS[err.code]) ?? `The request is not valid HTTP/1.1 (${err.code ?? 'unknown'}).`;
      return errors.invalidRequest(detail);
    }
  }
}

/** Writes a complete HTTP/1.1 response (the connection closes after it): Express never saw this request. */
function rawProblem(error: ApiError, requestId: string): string {
  const body = problemBody(error, requestId);
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...Object.entries(error.headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

export function answerClientErrors(server: Server, logger: Logger): void {
  // The latest response of each connection: once Express has begun (or finished) answering a request whose body
  // then breaks, a second answer written here would follow the first on the wire.
  const latest = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => latest.set(req.socket, res));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const res = latest.get(socket);
    // A peer that reset the connection, or one no longer writable, takes no answer; nor one whose latest response
    // began and is still being written (a pipelined request), or answered a request whose body then broke.
    const answering = res?.headersSent === true && (!res.req.complete || !res.writableFinished);
    if (err.code === 'ECONNRESET' || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const error = clientErrorProblem(err);
    const requestId = randomUUID();
    // The client's mistake, not the server's: info at most (error level is for server faults).
    logger.info({ request_id: requestId, code: err.code, status: error.status }, 'request refused by the HTTP parser');
    socket.end(rawProblem(error, requestId));
  });
}
