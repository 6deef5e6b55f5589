// The one place that reads the environment. Each setting is declared once below (variable, default, accepted values,
// meaning); the `Config` type, the checks at start and docs/configuration.md (`npm run docs:config`) derive from it.
import path from 'node:path';
import type { PrivateAddressPolicy } from './webhooks/address-guard.js';
import { parseSmppUrl } from './carrier/smpp/url.js';

export class ConfigError extends Error {}

/** One environment variable: how it is read, and how the reference (docs/configuration.md) describes it. */
interface Setting<T> {
  env: string;
  /** What it does, for the reference (markdown). */
  description: string;
  /** The value when unset or empty, as the reference shows it (markdown). */
  default: string;
  /** What a value must be: completes "<env> must be ..." in errors, and the reference's Accepts column. */
  accepts: string;
  /** Reads the variable (`raw`: its value, undefined when unset); throws a ConfigError naming it when invalid. */
  parse(raw: string | undefined, env: NodeJS.ProcessEnv): T;
}

interface SettingSpec<T> {
  env: string;
  description: string;
  default: string;
  accepts: string;
  /** The value when the variable is unset or empty. */
  fallback: (env: NodeJS.ProcessEnv) => T;
  /** The value of a non-empty variable, or undefined when it is not one of the accepted values. */
  read: (raw: string) => T | undefined;
  /** How an invalid value appears in the error: secrets are left out, passwords in URLs masked. */
  show?: (raw: string) => string | null;
}

function setting<T>(spec: SettingSpec<T>): Setting<T> {
  const { env, description, accepts } = spec;
  return {
    env,
    description,
    default: spec.default,
    accepts,
    parse(raw, all) {
      if (raw === undefined || raw === '') return spec.fallback(all);
      const value = spec.read(raw);
      if (value !== undefined) return value;
      const shown = spec.show ? spec.show(raw) : raw;
      throw new ConfigError(`${env} must be ${accepts}${shown === null ? '' : `, got "${shown}"`}`);
    },
  };
}

type Described = { env: string; description: string };

function integer(spec: Described & { default: number; min: number; max: number }): Setting<number> {
  return setting({
    ...spec,
    default: `\`${spec.default}\``,
    accepts: `an integer from ${spec.min} to ${spec.max}`,
    fallback: () => spec.default,
    read: (raw) => {
      const n = Number(raw);
      return Number.isInteger(n) && n >= spec.min && n <= spec.max ? n : undefined;
    },
  });
}

function oneOf<T extends string>(spec: Described & { values: readonly T[]; default: T }): Setting<T> {
  return setting({
    ...spec,
    default: `\`${spec.default}\``,
    accepts: spec.values.length === 1 ? spec.values[0] : `one of ${spec.values.join(', ')}`,
    fallback: () => spec.default,
    read: (raw) => spec.values.find((v) => v === raw),
  });
}

function bool(spec: Described & { default: string; fallback: (env: NodeJS.ProcessEnv) => boolean }): Setting<boolean> {
  const read = (raw: string) => (raw === 'true' ? true : raw === 'false' ? false : undefined);
  return setting({ ...spec, accepts: 'true or false', read });
}

/** A text that may be left unset (null). */
function optional(spec: Omit<SettingSpec<string | null>, 'fallback' | 'default'> & { default?: string }) {
  return setting<string | null>({ default: '(none)', ...spec, fallback: () => null });
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const NODE_ENVS = ['development', 'production', 'test'] as const;

const PRIVATE_ADDRESS_POLICIES = new Map<string, PrivateAddressPolicy>([
  ['true', 'all'],
  ['loopback', 'loopback'],
  ['false', 'none'],
]);

export type VerificationDelay = { ms: number } | { businessDays: number };

const DELAY_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** One run of consecutive E.164 numbers, both ends included (SMPP_NUMBERS). */
export interface NumberRange {
  first: string;
  last: string;
}

/** The most numbers one range of SMPP_NUMBERS may hold (the number search walks them). */
const MAX_RANGE = 100_000;

/** The ranges of a comma list of E.164 numbers and ranges, or undefined when an entry is not one. */
function parseNumberRanges(raw: string): NumberRange[] | undefined {
  const e164 = /^\+[1-9]\d{6,14}$/;
  const ranges: NumberRange[] = [];
  for (const entry of raw.split(',').map((e) => e.trim())) {
    if (!entry) continue;
    const [first, last = first, ...rest] = entry.split('-');
    if (rest.length || !e164.test(first) || !e164.test(last) || first.length !== last.length) return undefined;
    const size = BigInt(last) - BigInt(first) + 1n;
    if (size < 1n || size > BigInt(MAX_RANGE)) return undefined;
    ranges.push({ first, last });
  }
  return ranges.length ? ranges : undefined;
}

function smppUrlOk(raw: string): boolean {
  try {
    parseSmppUrl(raw);
    return true;
  } catch {
    return false;
  }
}

function verificationDelay(raw: string): VerificationDelay | undefined {
  const m = /^(\d{1,7})(ms|s|m|h|d|bd)$/.exec(raw.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] === 'bd' ? { businessDays: n } : { ms: n * DELAY_UNITS[m[2]] };
}

export const SETTINGS = {
  port: integer({
    env: 'PORT',
    default: 3000,
    min: 0,
    max: 65535,
    description: 'TCP port to listen on (0 picks a free one).',
  }),
  host: setting({
    env: 'HOST',
    description: 'Address to listen on (`0.0.0.0` for all interfaces).',
    default: '`127.0.0.1`',
    accepts: 'a host name or IP address',
    fallback: () => '127.0.0.1',
    read: (raw) => raw,
  }),
  publicUrl: optional({
    env: 'PUBLIC_URL',
    description:
      'The base URL clients reach this server at (e.g. `https://voice.example.com`), for the absolute links the API ' +
      "returns (a recording's `media_url`, `RecordingUrl` in instruction fetches).",
    default: "(none: the server's own `http://HOST:PORT` once listening)",
    accepts: 'an http or https URL without a query or fragment',
    read: (raw) => (/^https?:\/\/[^\s?#]+$/.test(raw) ? raw.replace(/\/+$/, '') : undefined),
  }),
  dataDir: setting({
    env: 'DATA_DIR',
    description: 'Folder of the embedded SQLite database (resolved against the working directory).',
    default: '`./data`',
    accepts: 'a folder path',
    fallback: () => path.resolve('./data'),
    read: (raw) => path.resolve(raw),
  }),
  databaseUrl: optional({
    env: 'DATABASE_URL',
    description: 'Use PostgreSQL at this URL instead of the embedded SQLite file.',
    accepts: 'a postgres:// or postgresql:// URL',
    read: (raw) => (/^postgres(ql)?:\/\//.test(raw) ? raw : undefined),
    show: (raw) => raw.replace(/:[^:@/]*@/, ':***@'),
  }),
  databaseSchema: optional({
    env: 'DATABASE_SCHEMA',
    description: 'PostgreSQL only: the schema to keep the tables in, created when missing.',
    default: "(none: the connection's `search_path`)",
    accepts: 'a lowercase identifier',
    read: (raw) => (/^[a-z_][a-z0-9_]{0,62}$/.test(raw) ? raw : undefined),
  }),
  databaseSynchronousCommit: optional({
    env: 'DATABASE_SYNCHRONOUS_COMMIT',
    description:
      "PostgreSQL only: `synchronous_commit` on the server's connections. With `off`, PostgreSQL confirms a commit " +
      'before its write-ahead log is on disk: a commit waits for no disk flush, so each request and message takes ' +
      'less time, but a crash of PostgreSQL itself (or of its machine) loses the writes of its last moments (up to ' +
      'three times `wal_writer_delay`, 0.6 s by default) that the API had already answered; the ' +
      'database stays consistent. A crash of this server loses nothing either way.',
    default: "(none: the database's own, `on` unless changed)",
    accepts: 'on, off, local, remote_write or remote_apply',
    read: (raw) => (['on', 'off', 'local', 'remote_write', 'remote_apply'].includes(raw) ? raw : undefined),
  }),
  databaseQueryTimeoutMs: integer({
    env: 'DATABASE_QUERY_TIMEOUT_MS',
    default: 30_000,
    min: 0,
    max: 3_600_000,
    description:
      "PostgreSQL only: how long a statement's answer is awaited (ms; 0: no limit). Past it the statement fails and " +
      'its connection is closed, as a database or network path gone silent would otherwise hold the request, job ' +
      'or shutdown waiting on it until the kernel gives the connection up (minutes to hours); the pool opens new ' +
      "connections. Migrations have no limit. A statement PostgreSQL is still running goes on there: set the role's " +
      '`statement_timeout` to end those too.',
  }),
  apiKey: optional({
    env: 'TELEPHONY_API_KEY',
    description: 'Makes sure a default account holding this API key exists at start (repeatable dev setups).',
    accepts: '16 to 256 characters without spaces',
    read: (raw) => (raw.length >= 16 && raw.length <= 256 && !/\s/.test(raw) ? raw : undefined),
    show: () => null,
  }),
  logLevel: oneOf({
    env: 'LOG_LEVEL',
    values: LOG_LEVELS,
    default: 'info',
    description: 'Least severe level of the log lines written (pino, JSON on stdout).',
  }),
  nodeEnv: oneOf({
    env: 'NODE_ENV',
    values: NODE_ENVS,
    default: 'development',
    description: '`production` turns response validation off and uses production delays.',
  }),
  testFailAfterWork: oneOf({
    env: 'TEST_FAIL_AFTER_WORK',
    values: ['off', 'throw', 'exit'] as const,
    default: 'off',
    description:
      'Tests only, ignored unless `NODE_ENV=test`: a request with an Idempotency-Key fails once its work has ' +
      'committed, before it answers (`throw`: it answers 500; `exit`: the process is killed), to show a retry ' +
      'replays the recorded response and creates nothing twice.',
  }),
  validateResponses: bool({
    env: 'VALIDATE_RESPONSES',
    description: 'Check every response against the spec (a violation is logged and answered 500).',
    default: '`true`, or `false` with `NODE_ENV=production`',
    fallback: (env) => env.NODE_ENV !== 'production',
  }),
  jobPollMs: integer({
    env: 'JOB_POLL_MS',
    default: 200,
    min: 5,
    max: 60_000,
    description: 'How often an idle job worker (and the webhook delivery) looks for due work (ms).',
  }),
  jobLeaseMs: integer({
    env: 'JOB_LEASE_MS',
    default: 60_000,
    min: 5_000,
    max: 3_600_000,
    description:
      'How long a claimed job or webhook event stays reserved for its instance (ms); after an instance dies, its ' +
      'jobs and webhooks run again once their lease ends. It must outlast the longest job, and a webhook attempt ' +
      'with a margin (see the rules between settings).',
  }),
  shutdownTimeoutMs: integer({
    env: 'SHUTDOWN_TIMEOUT_MS',
    default: 10_000,
    min: 0,
    max: 600_000,
    description:
      'On SIGTERM or SIGINT, how long the server waits for the requests in flight and the jobs and webhook attempts ' +
      'in hand to finish (ms). Connections still open then are closed, and jobs and webhook events still held are ' +
      'released for any instance to claim at once; then the process exits 0 (1 if the shutdown itself fails).',
  }),
  idempotencyLeaseMs: integer({
    env: 'IDEMPOTENCY_LEASE_MS',
    default: 60_000,
    min: 1_000,
    max: 3_600_000,
    description:
      'How long a request holding an Idempotency-Key keeps it (ms): after its instance dies or stalls that long, a ' +
      'retry with the key takes it over and runs the work. The late request can then neither record its response ' +
      'nor free the key; it must outlast the slowest idempotent request.',
  }),
  jobMaxClaims: integer({
    env: 'JOB_MAX_CLAIMS',
    default: 5,
    min: 1,
    max: 100,
    description:
      'How many times a job or webhook event may be claimed without its run ever ending (the instance running ' +
      'it stopped, every time, before its lease ran out); at the next claim it is marked dead with the reason, ' +
      'logged once at error level and counted in /metrics, so that work which kills its process ends.',
  }),
  jobConcurrency: integer({
    env: 'JOB_CONCURRENCY',
    default: 100,
    min: 50,
    max: 5000,
    description:
      'Background jobs running at once, and as many webhook attempts: more costs a little less CPU per message ' +
      'but makes the event loop run later under load (the default kept the pipeline closest behind a high send ' +
      'rate), fewer leaves more of the CPU to the API under a burst of requests.',
  }),
  apiKeyCacheMs: integer({
    env: 'API_KEY_CACHE_MS',
    default: 1000,
    min: 0,
    max: 60_000,
    description:
      'How long a checked API key stays known without another database read (ms; 0 reads on every request). ' +
      'A key revoked by this server stops working at once; one revoked from elsewhere (the CLI, another ' +
      'instance) within this time.',
  }),
  addressVerificationDelay: setting({
    env: 'ADDRESS_VERIFICATION_DELAY',
    description: 'Time until a submitted address is verified or rejected: e.g. 500ms, 5s, 10m, 2h, 1d, or 1bd.',
    default: '`1bd` with `NODE_ENV=production`, else `5s`',
    accepts: 'a number with a unit (ms, s, m, h, d, or bd for business days, Monday to Friday UTC), e.g. 5s or 1bd',
    fallback: (env) => verificationDelay(env.NODE_ENV === 'production' ? '1bd' : '5s')!,
    read: verificationDelay,
  }),
  secretKey: optional({
    env: 'SECRET_KEY',
    description:
      'Server secret: keys the hashes of OTP codes and seals webhook signing secrets and resent codes. Required ' +
      'with `NODE_ENV=production`. Without it, one is generated once into `DATA_DIR/secret.key` (mode 0600), never ' +
      'into the database; several instances on one PostgreSQL database must all use the same one (an instance ' +
      'with another refuses to start), so set it, or copy that file, on each.',
    default: '(generated into `DATA_DIR/secret.key`)',
    accepts: 'at least 32 characters',
    read: (raw) => (raw.length >= 32 ? raw : undefined),
    show: () => null,
  }),
  secretKeyPrevious: optional({
    env: 'SECRET_KEY_PREVIOUS',
    description:
      'To change the server secret: the old one, for one start with the new one in `SECRET_KEY` (every other ' +
      'instance stopped); that start re-seals the webhook signing secrets. Pending verifications sealed under ' +
      'the old one end when their code is sent again.',
    default: '(none)',
    accepts: 'at least 32 characters',
    read: (raw) => (raw.length >= 32 ? raw : undefined),
    show: () => null,
  }),
  carrier: oneOf({
    env: 'CARRIER',
    values: ['sandbox', 'smpp'] as const,
    default: 'sandbox',
    description:
      'The network behind the API: `sandbox`, the built-in simulation, or `smpp`, a real SMSC for SMS (see ' +
      'docs/smpp.md; needs `SMPP_URL`).',
  }),
  smppUrl: optional({
    env: 'SMPP_URL',
    description:
      'SMPP only: the SMSC to bind to as a transceiver, `smpp://SYSTEM_ID:PASSWORD@HOST:PORT` (`smpps://` for TLS; ' +
      'the port defaults to 2775). Required with `CARRIER=smpp`; the password is never logged.',
    accepts: 'an smpp:// or smpps:// URL with a system id and a host',
    read: (raw) => (smppUrlOk(raw) ? raw : undefined),
    show: (raw) => raw.replace(/:[^:@/]*@/, ':***@'),
  }),
  smppSystemType: optional({
    env: 'SMPP_SYSTEM_TYPE',
    description: 'SMPP only: the `system_type` of the bind, when the SMSC asks for one.',
    accepts: 'at most 12 printable ASCII characters',
    read: (raw) => (/^[\x21-\x7e]{1,12}$/.test(raw) ? raw : undefined),
  }),
  smppWindow: integer({
    env: 'SMPP_WINDOW',
    default: 10,
    min: 1,
    max: 1000,
    description: 'SMPP only: `submit_sm` requests outstanding (sent, not yet answered) at most.',
  }),
  smppTps: integer({
    env: 'SMPP_TPS',
    default: 50,
    min: 1,
    max: 100_000,
    description: "SMPP only: `submit_sm` requests per second at most (the SMSC account's throughput).",
  }),
  smppSourceTon: integer({
    env: 'SMPP_SOURCE_TON',
    default: 1,
    min: 0,
    max: 6,
    description: 'SMPP only: type of number of the sender (1: international; numbers are sent without the `+`).',
  }),
  smppSourceNpi: integer({
    env: 'SMPP_SOURCE_NPI',
    default: 1,
    min: 0,
    max: 18,
    description: 'SMPP only: numbering plan of the sender (1: ISDN/E.164).',
  }),
  smppDestTon: integer({
    env: 'SMPP_DEST_TON',
    default: 1,
    min: 0,
    max: 6,
    description: 'SMPP only: type of number of the destination (1: international).',
  }),
  smppDestNpi: integer({
    env: 'SMPP_DEST_NPI',
    default: 1,
    min: 0,
    max: 18,
    description: 'SMPP only: numbering plan of the destination (1: ISDN/E.164).',
  }),
  smppNumbers: setting<NumberRange[]>({
    env: 'SMPP_NUMBERS',
    description:
      'SMPP only: the numbers the platform holds on this SMSC, a comma list of E.164 numbers and ranges ' +
      '(`+12025550100,+12025550200-+12025550299`, at most 100000 numbers a range). The available-numbers search ' +
      'offers these (of the country and type searched, not held by anyone) and provisioning takes no other.',
    default: '(none: no number can be provisioned)',
    accepts: 'a comma list of E.164 numbers and ranges +FIRST-+LAST of the same length',
    fallback: () => [],
    read: parseNumberRanges,
  }),
  smppResponseTimeoutMs: integer({
    env: 'SMPP_RESPONSE_TIMEOUT_MS',
    default: 10_000,
    min: 100,
    max: 120_000,
    description:
      'SMPP only: time the SMSC has to answer a `submit_sm` (ms); past it the part is submitted once more (SMPP has ' +
      'no idempotency, so the handset may get it twice), then the message fails `SMPP_TIMEOUT`.',
  }),
  smppConcatTimeoutMs: integer({
    env: 'SMPP_CONCAT_TIMEOUT_MS',
    default: 300_000,
    min: 100,
    max: 86_400_000,
    description:
      'SMPP only: how long the parts of a long inbound message are held for the missing ones (ms); then the parts ' +
      'received are delivered as one message.',
  }),
  sandboxSentDelayMs: integer({
    env: 'SANDBOX_SENT_DELAY_MS',
    default: 100,
    min: 0,
    max: 600_000,
    description: 'Sandbox: time from `sending` to `sent` (ms).',
  }),
  sandboxDeliveryDelayMs: integer({
    env: 'SANDBOX_DELIVERY_DELAY_MS',
    default: 200,
    min: 0,
    max: 600_000,
    description: 'Sandbox: time from `sent` to `delivered` or `undelivered` (ms).',
  }),
  sandboxSlowDeliveryMs: integer({
    env: 'SANDBOX_SLOW_DELIVERY_MS',
    default: 5000,
    min: 0,
    max: 3_600_000,
    description: 'Sandbox: time from `sent` to `delivered` for the slow magic number +15005550004 (ms).',
  }),
  sandboxReadDelayMs: integer({
    env: 'SANDBOX_READ_DELAY_MS',
    default: 500,
    min: 0,
    max: 600_000,
    description: 'Sandbox: time from `delivered` to `read` for RCS (ms).',
  }),
  sandboxMessagesPerSecond: integer({
    env: 'SANDBOX_MESSAGES_PER_SECOND',
    default: 10,
    min: 1,
    max: 1_000_000,
    description: 'Sandbox: messages per second one `from` number may hand to the network (like a long code).',
  }),
  sandboxRecordHandovers: bool({
    env: 'SANDBOX_RECORD_HANDOVERS',
    description:
      "Sandbox: record each message handed to the network as a row of `sandbox_handovers`, in the hand-over's " +
      'transaction, so a run can count hand-overs per message (the cluster bench and test do).',
    default: '`false`',
    fallback: () => false,
  }),
  sandboxCallRingMs: integer({
    env: 'SANDBOX_CALL_RING_MS',
    default: 3000,
    min: 0,
    max: 600_000,
    description: 'Sandbox: how long a call rings before it is answered (ms of call time).',
  }),
  sandboxCallSpeed: integer({
    env: 'SANDBOX_CALL_SPEED',
    default: 1,
    min: 1,
    max: 1000,
    description:
      'Sandbox: how many times faster than real time calls play (every wait is divided by it); durations stay ' +
      'in call time.',
  }),
  callFetchTimeoutMs: integer({
    env: 'CALL_FETCH_TIMEOUT_MS',
    default: 10_000,
    min: 100,
    max: 60_000,
    description: "Time an instructions URL has to answer a call's fetch (ms); past it the call ends `failed`.",
  }),
  recordingMaxBytes: integer({
    env: 'RECORDING_MAX_BYTES',
    default: 8_388_608,
    min: 1024,
    max: 1_073_741_824,
    description: 'Largest recording stored (bytes of WAV); a longer one ends `failed` (`recording_too_large`).',
  }),
  webhookTimeoutMs: integer({
    env: 'WEBHOOK_TIMEOUT_MS',
    default: 10_000,
    min: 100,
    max: 60_000,
    description: 'Time a webhook endpoint has to answer one attempt (ms).',
  }),
  webhookRetryBaseMs: integer({
    env: 'WEBHOOK_RETRY_BASE_MS',
    default: 5_000,
    min: 1,
    max: 3_600_000,
    description:
      'The longest delay before the first retry of a webhook (ms): each delay is a random point between half of ' +
      'its step and all of it (jitter), and the step doubles per attempt.',
  }),
  webhookRetryMaxMs: integer({
    env: 'WEBHOOK_RETRY_MAX_MS',
    default: 3_600_000,
    min: 1,
    max: 86_400_000,
    description: 'Longest delay between two attempts of a webhook (ms).',
  }),
  webhookRetentionDays: integer({
    env: 'WEBHOOK_RETENTION_DAYS',
    default: 30,
    min: 1,
    max: 3650,
    description:
      'Days a webhook event that was delivered or given up is kept with its attempts, counted from its creation; ' +
      'an hourly job removes older ones, and idempotency records once their 24 h are over.',
  }),
  webhookMaxAttempts: integer({
    env: 'WEBHOOK_MAX_ATTEMPTS',
    default: 15,
    min: 1,
    max: 100,
    description: 'Attempts before a webhook event is given up as failed.',
  }),
  webhookAllowPrivate: setting<PrivateAddressPolicy>({
    env: 'WEBHOOK_ALLOW_PRIVATE',
    description:
      'Which non-public addresses URLs the API stores or calls (webhooks, instructions, media) may point at: ' +
      '`true` allows all, `loopback` only 127.0.0.0/8, ::1 and `localhost` (for local receivers), `false` none. ' +
      'Private, link-local, CGNAT, NAT64, 6to4, multicast, documentation and other reserved ranges are refused ' +
      'when a URL is given (`400 url_not_allowed`, by its literal host) and again at delivery (by what a name ' +
      'resolves to).',
    default: '`false` with `NODE_ENV=production`, else `loopback`',
    accepts: 'true, loopback or false',
    fallback: (env) => (env.NODE_ENV === 'production' ? 'none' : 'loopback'),
    read: (raw) => PRIVATE_ADDRESS_POLICIES.get(raw),
  }),
  verifyMaxSendsPerHour: integer({
    env: 'VERIFY_MAX_SENDS_PER_HOUR',
    default: 1000,
    min: 1,
    max: 10_000_000,
    description:
      'Verification codes one account may send per hour, first sends and re-sends (a guard against SMS pumping); ' +
      'beyond it 429 rate_limited.',
  }),
  rateLimitPerSecond: integer({
    env: 'RATE_LIMIT_PER_SECOND',
    default: 100,
    min: 0,
    max: 1_000_000,
    description:
      'Requests one account may make per second on `/v1` (a 1-second window), beyond which it draws on its burst ' +
      'allowance, then answers 429 rate_limited with Retry-After and RateLimit-* headers. 0 turns the limit off. ' +
      'Counted in Redis with REDIS_URL, else in the database on PostgreSQL (either way shared by every instance), ' +
      'else in memory (SQLite).',
  }),
  rateLimitBurst: integer({
    env: 'RATE_LIMIT_BURST',
    default: 200,
    min: 0,
    max: 1_000_000,
    description:
      'The most requests one account may make within one second: the requests beyond RATE_LIMIT_PER_SECOND come ' +
      'from a burst allowance of RATE_LIMIT_BURST − RATE_LIMIT_PER_SECOND requests per 10 seconds (so sustained ' +
      'traffic may reach RATE_LIMIT_PER_SECOND plus a tenth of that allowance). 0 turns the limit off.',
  }),
  redisUrl: optional({
    env: 'REDIS_URL',
    description:
      'Count the request rate limit in this Redis, shared by every instance using it (else in the database on ' +
      'PostgreSQL, in memory on SQLite). While Redis does not answer, requests are let through (logged).',
    accepts: 'a redis:// or rediss:// URL',
    read: (raw) => (/^rediss?:\/\//.test(raw) ? raw : undefined),
    show: (raw) => raw.replace(/:[^:@/]*@/, ':***@'),
  }),
  maxNumbersPerAccount: integer({
    env: 'MAX_NUMBERS_PER_ACCOUNT',
    default: 1000,
    min: 1,
    max: 10_000_000,
    description:
      'Phone numbers one account may hold at once; provisioning another answers 422 number_quota_exceeded. ' +
      'Exact under concurrent requests.',
  }),
  maxQueuedMessages: integer({
    env: 'MAX_QUEUED_MESSAGES',
    default: 100_000,
    min: 1,
    max: 100_000_000,
    description:
      'Messages one account may have `queued` at once (waiting to be sent, scheduled ones included); sending ' +
      'another answers 422 message_queue_full. Exact under concurrent requests.',
  }),
  maxOpenProxySessions: integer({
    env: 'MAX_OPEN_PROXY_SESSIONS',
    default: 1000,
    min: 1,
    max: 10_000_000,
    description:
      'Proxy sessions one account may have open or in progress at once; creating another answers 422 ' +
      'proxy_session_quota_exceeded. Exact under concurrent requests.',
  }),
  dashboardIdleMinutes: integer({
    env: 'DASHBOARD_IDLE_MINUTES',
    default: 30,
    min: 1,
    max: 43_200,
    description:
      'Minutes a dashboard session (`/dashboard`) lasts without a request; the next one after that signs in again.',
  }),
};

/** The settings as the server uses them: one property per entry of SETTINGS, typed by what its parse returns. */
export type Config = { [K in keyof typeof SETTINGS]: ReturnType<(typeof SETTINGS)[K]['parse']> };

/** A rule between settings, checked once each of them is valid on its own. */
interface ConfigRule {
  /** The rule, for the reference. */
  rule: string;
  /** What breaks when it does not hold: ends the error message, and explains the rule in the reference. */
  why: string;
  /** The problem with these values (naming the variables and their values), or null when the rule holds. */
  check: (config: Config) => string | null;
}

/**
 * What a lease must hold beyond a webhook attempt's own timeout, whose timer starts in the sender thread: the claim's
 * commit, the hop to that thread and back, and the commit releasing the event. Those take milliseconds, seconds only
 * on a stalled event loop or database. The rules below, not the lease's own minimum, set the shortest lease: a timeout
 * plus this margin.
 */
const LEASE_MARGIN_MS = 5_000;
const DAY_MS = 86_400_000;

export const RULES: ConfigRule[] = [
  {
    rule: 'NODE_ENV=production needs SECRET_KEY',
    why:
      'a generated secret lives in a file beside the data, where a copy of the data folder takes it along; in ' +
      'production the secret comes from the environment (or a secret store), kept apart from the data',
    check: (c) =>
      c.nodeEnv !== 'production' || c.secretKey
        ? null
        : 'SECRET_KEY must be set (32 characters or more, e.g. `openssl rand -base64 32`) with NODE_ENV=production',
  },
  {
    rule: `JOB_LEASE_MS ≥ WEBHOOK_TIMEOUT_MS + ${LEASE_MARGIN_MS}`,
    why:
      'a lease that ends while its webhook attempt may still run lets another instance claim the event ' +
      'and deliver it twice',
    check: (c) =>
      c.jobLeaseMs >= c.webhookTimeoutMs + LEASE_MARGIN_MS
        ? null
        : `JOB_LEASE_MS (${c.jobLeaseMs}) must be at least ` +
          `WEBHOOK_TIMEOUT_MS (${c.webhookTimeoutMs}) + ${LEASE_MARGIN_MS}`,
  },
  {
    rule: `JOB_LEASE_MS ≥ CALL_FETCH_TIMEOUT_MS + ${LEASE_MARGIN_MS}`,
    why:
      "a lease that ends while a call's instructions fetch may still run lets another instance claim it, which " +
      'takes the call for interrupted and ends it `failed`',
    check: (c) =>
      c.jobLeaseMs >= c.callFetchTimeoutMs + LEASE_MARGIN_MS
        ? null
        : `JOB_LEASE_MS (${c.jobLeaseMs}) must be at least ` +
          `CALL_FETCH_TIMEOUT_MS (${c.callFetchTimeoutMs}) + ${LEASE_MARGIN_MS}`,
  },
  {
    rule: 'WEBHOOK_RETRY_MAX_MS ≥ WEBHOOK_RETRY_BASE_MS',
    why: 'the longest delay between attempts caps the first one too, so the base would never apply',
    check: (c) =>
      c.webhookRetryMaxMs >= c.webhookRetryBaseMs
        ? null
        : `WEBHOOK_RETRY_MAX_MS (${c.webhookRetryMaxMs}) must be at least ` +
          `WEBHOOK_RETRY_BASE_MS (${c.webhookRetryBaseMs})`,
  },
  {
    rule: 'WEBHOOK_RETENTION_DAYS × 1 day > WEBHOOK_MAX_ATTEMPTS × (WEBHOOK_RETRY_MAX_MS + WEBHOOK_TIMEOUT_MS)',
    why:
      "retention counts from an event's creation, so an event still being retried past it would be removed as " +
      'soon as it is given up, before anyone could see why it failed',
    check: (c) => {
      const longest = c.webhookMaxAttempts * (c.webhookRetryMaxMs + c.webhookTimeoutMs);
      if (c.webhookRetentionDays * DAY_MS > longest) return null;
      return (
        `WEBHOOK_RETENTION_DAYS (${c.webhookRetentionDays}) must exceed WEBHOOK_MAX_ATTEMPTS ` +
        `(${c.webhookMaxAttempts}) × (WEBHOOK_RETRY_MAX_MS (${c.webhookRetryMaxMs}) + ` +
        `WEBHOOK_TIMEOUT_MS (${c.webhookTimeoutMs})), here ${(longest / DAY_MS).toFixed(1)} days`
      );
    },
  },
  {
    rule: 'CARRIER=smpp needs SMPP_URL',
    why: 'the SMPP carrier binds to that SMSC',
    check: (c) =>
      c.carrier !== 'smpp' || c.smppUrl
        ? null
        : 'SMPP_URL must be set (smpp://SYSTEM_ID:PASSWORD@HOST:PORT, or smpps:// for TLS) with CARRIER=smpp',
  },
  {
    rule: 'RATE_LIMIT_BURST ≥ RATE_LIMIT_PER_SECOND, or either is 0 (off)',
    why: 'the burst is the most requests allowed within one second, so it cannot be below the rate per second',
    check: (c) =>
      c.rateLimitPerSecond === 0 || c.rateLimitBurst === 0 || c.rateLimitBurst >= c.rateLimitPerSecond
        ? null
        : `RATE_LIMIT_BURST (${c.rateLimitBurst}) must be at least RATE_LIMIT_PER_SECOND (${c.rateLimitPerSecond})`,
  },
];

/** Reads and checks every setting, then the rules between them; throws one ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const out: Partial<Record<keyof Config, unknown>> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [keyof Config, Setting<unknown>][]) {
    try {
      out[key] = setting.parse(env[setting.env], env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
    }
  }
  const config = { ...(out as Config), ...overrides };
  // A rule over a value already reported bad would only repeat that problem.
  if (!problems.length) {
    for (const { check, why } of RULES) {
      const problem = check(config);
      if (problem) problems.push(`${problem}: ${why}`);
    }
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}
