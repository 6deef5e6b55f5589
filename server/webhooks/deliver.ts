// One HTTP attempt of a webhook: POST the JSON body with its signed headers, bounded by a timeout.
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
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

export interface DeliverOptions {
  timeoutMs: number;
  /** Which non-public addresses may be called (WEBHOOK_ALLOW_PRIVATE). */
  privateAddresses: PrivateAddressPolicy;
}

export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: DeliverOptions,
): Promise<AttemptResult> {
  const first = await attempt(url, body, headers, options);
  // A kept-alive connection the receiver closed while idle fails at once: that is not the receiver's answer.
  return first.staleSocket ? attempt(url, body, headers, options) : first;
}

function attempt(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: DeliverOptions,
): Promise<AttemptResult & { staleSocket?: boolean }> {
  // The attempt's latency is a duration in real time, not the domain's clock.
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const done = (partial: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...partial, durationMs: took() });
  const failed = (error: string, permanent = false) => failedAttempt(error, permanent, took());

  // The policy that refused the URL when it was given refuses it here too (it may predate a stricter setting).
  const refused = checkUrl(url, options.privateAddresses);
  if (refused) return Promise.resolve(failed(`refused: the URL ${refused}`, true));
  const target = new URL(url);

  return new Promise((resolve) => {
    const lib = target.protocol === 'https:' ? https : http;
    const req = lib.request(
      target,
      {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'telephony-webhooks/1',
        },
        lookup: options.privateAddresses === 'all' ? undefined : guardedLookup(options.privateAddresses),
        timeout: options.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => {
          clearTimeout(overall);
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          resolve(
            done({
              ok,
              status,
              body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE_BYTES),
              contentType: String(res.headers['content-type'] ?? ''),
              error: ok ? null : `HTTP ${status}`,
              permanent: false,
            }),
          );
        });
        res.on('error', (err) => resolve(failed(err.message)));
      },
    );
    // The socket timeout covers idle periods; this one bounds the whole attempt.
    const overall = setTimeout(
      () => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(overall);
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      resolve({ ...failed(err.message, err instanceof PrivateAddressError), staleSocket: stale });
    });
    req.end(body);
  });
}
