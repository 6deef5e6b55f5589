// One HTTP attempt to a URL an account gave (a webhook's POST, a call's instruction fetch): through the URL policy and
// the address guard, bounded by a timeout and a response size.
import http from 'node:http';
import https from 'node:https';
import { PrivateAddressError, guardedLookup, type PrivateAddressPolicy } from './address-guard.js';
import { checkUrl } from './url-policy.js';

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  /** The response body (first 64 KB), for handlers that read replies. */
  body: string;
  contentType: string;
  error: string | null;
  durationMs: number;
  /** True when retrying cannot help (the URL is refused outright). */
  permanent: boolean;
}

/** An attempt that got no answer from the receiver (connection error, refused URL, sender stopped). */
export function failedAttempt(error: string, permanent = false, durationMs = 0): AttemptResult {
  return { ok: false, status: null, body: '', contentType: '', error, durationMs, permanent };
}

const MAX_RESPONSE_BYTES = 64 * 1024;
/**
 * How long a kept-alive connection to a receiver may idle before it is closed here: shorter than the 5 s most servers
 * keep one (Node's, Apache's), and a second less than a receiver's own `Keep-Alive: timeout=` when that is shorter
 * (Node's agent reads the hint only when given a timeout of its own). A connection the receiver closes just as it
 * is reused fails the request at once (the stale-socket retry below); closing it first avoids most of those.
 */
const IDLE_CONNECTION_MS = 4000;
const kept = { keepAlive: true, maxSockets: 256, timeout: IDLE_CONNECTION_MS };
const agents = { 'http:': new http.Agent(kept), 'https:': new https.Agent(kept) };

export interface DeliverOptions {
  timeoutMs: number;
  /** Which non-public addresses may be called (WEBHOOK_ALLOW_PRIVATE). */
  privateAddresses: PrivateAddressPolicy;
}

/** One HTTP request to a URL given by an account: the same policy, address guard, timeout and response bound. */
export interface OutgoingRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** Sent with its content type; null sends no body. */
  body: { text: string; contentType: string } | null;
  userAgent: string;
  /**
   * Past 64 KB of response: `read-on` reads to the end and keeps the start (a webhook's answer is its status), `stop`
   * ends the request at once (a document that large is refused anyway). Either way `oversize` says so.
   */
  onOversize: 'read-on' | 'stop';
}

/** Why a request got no answer, when the account may only be told the kind of reason (see `cause`). */
type FailureCause = 'private-address' | 'unresolved' | null;

export type RequestResult = AttemptResult & {
  oversize: boolean;
  /** The response body's first 64 KB as bytes, for a reader that decodes it by its charset. */
  raw: Buffer;
  /** The `Location` header of the answer, for a caller that follows redirects. */
  location: string | null;
  /**
   * A refusal by the address guard or a name that did not resolve: `error` then tells how the server resolved the
   * name (internal detail) and the account sees only this kind.
   */
  cause: FailureCause;
};

/** DNS answers meaning the name does not resolve (now or at all). */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL']);

export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: DeliverOptions,
): Promise<AttemptResult> {
  const request: OutgoingRequest = {
    method: 'POST',
    url,
    headers,
    body: { text: body, contentType: 'application/json' },
    userAgent: 'telephony-webhooks/1',
    onOversize: 'read-on',
  };
  return sendRequest(request, options);
}

export async function sendRequest(request: OutgoingRequest, options: DeliverOptions): Promise<RequestResult> {
  const first = await attempt(request, options);
  // A kept-alive connection the receiver closed while idle fails at once: that is not the receiver's answer.
  return first.staleSocket ? attempt(request, options) : first;
}

function attempt(
  request: OutgoingRequest,
  options: DeliverOptions,
): Promise<RequestResult & { staleSocket?: boolean }> {
  // The attempt's latency is a duration in real time, not the domain's clock.
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const done = (partial: Omit<RequestResult, 'durationMs'>): RequestResult => ({ ...partial, durationMs: took() });
  const failed = (error: string, permanent = false, cause: FailureCause = null) => ({
    ...failedAttempt(error, permanent, took()),
    oversize: false,
    raw: Buffer.alloc(0),
    location: null,
    cause,
  });

  // The policy that refused the URL when it was given refuses it here too (it may predate a stricter setting).
  const refused = checkUrl(request.url, options.privateAddresses);
  if (refused) return Promise.resolve(failed(`refused: the URL ${refused}`, true));
  const target = new URL(request.url);
  const timedOut = `timed out after ${options.timeoutMs} ms`;

  return new Promise((resolve) => {
    const lib = target.protocol === 'https:' ? https : http;
    const headers: http.OutgoingHttpHeaders = { ...request.headers, 'user-agent': request.userAgent };
    if (request.body) {
      headers['content-type'] = request.body.contentType;
      headers['content-length'] = Buffer.byteLength(request.body.text);
    }
    const req = lib.request(
      target,
      {
        method: request.method,
        agent: agents[target.protocol as 'http:' | 'https:'],
        headers,
        lookup: options.privateAddresses === 'all' ? undefined : guardedLookup(options.privateAddresses),
        timeout: options.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const answered = () => {
          const raw = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES);
          return done({
            ok,
            status,
            body: raw.toString('utf8'),
            raw,
            location: res.headers.location ?? null,
            cause: null,
            contentType: String(res.headers['content-type'] ?? ''),
            error: ok ? null : `HTTP ${status}`,
            permanent: false,
            oversize: size > MAX_RESPONSE_BYTES,
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES && request.onOversize === 'stop') {
            clearTimeout(overall);
            resolve(answered());
            req.destroy();
          }
        });
        res.on('end', () => {
          clearTimeout(overall);
          resolve(answered());
        });
        res.on('error', (err) => resolve(failed(err.message)));
      },
    );
    // The socket timeout covers idle periods; this one bounds the whole attempt, the response's body included.
    const overall = setTimeout(() => {
      resolve(failed(timedOut));
      req.destroy(new Error(timedOut));
    }, options.timeoutMs);
    req.on('timeout', () => req.destroy(new Error(timedOut)));
    // A kept connection keeps the idle timeout it had (a receiver's Keep-Alive hint makes it shorter), and Node sets
    // the request's own on it only when that differs from IDLE_CONNECTION_MS: set here, whatever it is.
    req.on('socket', (socket) => socket.setTimeout(options.timeoutMs));
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(overall);
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      const refused = err instanceof PrivateAddressError;
      const cause = refused ? 'private-address' : UNRESOLVED.has(err.code ?? '') ? 'unresolved' : null;
      resolve({ ...failed(err.message, refused, cause), staleSocket: stale });
    });
    req.end(request.body?.text);
  });
}
