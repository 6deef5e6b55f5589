// The one place that reads the environment: a documented schema, checked at start.
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL schema holding the tables (created when missing). */
  databaseSchema: string | null;
  apiKey: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  nodeEnv: 'development' | 'production' | 'test';
  /** Validate every response against the spec (always outside production). */
  validateResponses: boolean;
  /** How often an idle job worker looks for due jobs, in milliseconds. */
  jobPollMs: number;
  /** How long a claimed job stays reserved for its worker; a job whose worker died runs again after it. */
  jobLeaseMs: number;
  /** Background jobs running at once: more keeps the message pipeline closer behind, fewer leaves more to the API. */
  jobConcurrency: number;
  /** How long an API key's account, once read, answers for it without another look at the database (0: never). */
  apiKeyCacheMs: number;
  /** How long address verification takes: a fixed time, or business days (Monday to Friday, UTC). */
  addressVerificationDelay: VerificationDelay;
  /** Server secret used to key hashes of short secrets (OTP codes). */
  secretKey: string | null;
  /** The network behind the API; only the built-in sandbox so far. */
  carrier: 'sandbox';
  /** Sandbox: milliseconds from `sending` to `sent`. */
  sandboxSentDelayMs: number;
  /** Sandbox: milliseconds from `sent` to `delivered` (or `undelivered`). */
  sandboxDeliveryDelayMs: number;
  /** Sandbox: milliseconds from `sent` to `delivered` for the slow magic number. */
  sandboxSlowDeliveryMs: number;
  /** Sandbox: milliseconds from `delivered` to `read` for RCS. */
  sandboxReadDelayMs: number;
  /** Sandbox: messages per second one sending number may hand to the network. */
  sandboxMessagesPerSecond: number;
  /** Webhooks: per-attempt timeout in milliseconds. */
  webhookTimeoutMs: number;
  /** Webhooks: first retry delay in milliseconds; doubles per attempt, with jitter. */
  webhookRetryBaseMs: number;
  /** Webhooks: longest delay between two attempts, in milliseconds. */
  webhookRetryMaxMs: number;
  /** Webhooks: attempts before an event is given up as failed. */
  webhookMaxAttempts: number;
  /** Webhooks: allow URLs that resolve to private, loopback or link-local addresses. */
  webhookAllowPrivate: boolean;
  /** Webhooks: days an event that ended (delivered or given up) is kept, with its attempts. */
  webhookRetentionDays: number;
  /** Verifications: codes one account may send per hour (fraud guard against SMS pumping). */
  verifyMaxSendsPerHour: number;
}

interface Setting<K extends keyof Config> {
  env: string;
  description: string;
  parse: (raw: string | undefined, env: NodeJS.ProcessEnv) => Config[K];
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const NODE_ENVS = ['development', 'production', 'test'] as const;

function integer(env: string, fallback: number, min: number, max: number) {
  return (raw: string | undefined) => {
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ConfigError(`${env} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
}

function oneOf<T extends string>(env: string, values: readonly T[], fallback: T) {
  return (raw: string | undefined): T => {
    if (raw === undefined || raw === '') return fallback;
    if (!(values as readonly string[]).includes(raw)) {
      throw new ConfigError(`${env} must be one of ${values.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  };
}

export const SETTINGS: { [K in keyof Config]: Setting<K> } = {
  port: { env: 'PORT', description: 'TCP port to listen on (0 picks a free one).', parse: integer('PORT', 3000, 0, 65535) },
  host: { env: 'HOST', description: 'Address to listen on.', parse: (raw) => raw || '127.0.0.1' },
  dataDir: {
    env: 'DATA_DIR',
    description: 'Folder of the embedded SQLite database.',
    parse: (raw) => path.resolve(raw || './data'),
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    description: 'postgres://... to use PostgreSQL instead of the embedded SQLite file.',
    parse: (raw) => {
      if (!raw) return null;
      if (!/^postgres(ql)?:\/\//.test(raw)) {
        throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://, got "${raw.replace(/:[^:@/]*@/, ':***@')}"`);
      }
      return raw;
    },
  },
  databaseSchema: {
    env: 'DATABASE_SCHEMA',
    description: 'PostgreSQL only: the schema to keep the tables in (default: the connection\'s search_path).',
    parse: (raw) => {
      if (!raw) return null;
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new ConfigError(`DATABASE_SCHEMA must be a lowercase identifier, got "${raw}"`);
      return raw;
    },
  },
  apiKey: {
    env: 'TELEPHONY_API_KEY',
    description: 'Ensures a default account holding this API key exists at start.',
    parse: (raw) => {
      if (!raw) return null;
      if (raw.length < 16 || raw.length > 256 || /\s/.test(raw)) {
        throw new ConfigError('TELEPHONY_API_KEY must be 16 to 256 characters without spaces');
      }
      return raw;
    },
  },
  logLevel: { env: 'LOG_LEVEL', description: 'pino log level.', parse: oneOf('LOG_LEVEL', LOG_LEVELS, 'info') },
  nodeEnv: { env: 'NODE_ENV', description: 'development, production or test.', parse: oneOf('NODE_ENV', NODE_ENVS, 'development') },
  validateResponses: {
    env: 'VALIDATE_RESPONSES',
    description: 'true/false; defaults to true unless NODE_ENV=production.',
    parse: (raw, env) => {
      if (raw === undefined || raw === '') return env.NODE_ENV !== 'production';
      if (raw !== 'true' && raw !== 'false') throw new ConfigError(`VALIDATE_RESPONSES must be true or false, got "${raw}"`);
      return raw === 'true';
    },
  },
  jobPollMs: { env: 'JOB_POLL_MS', description: 'Idle poll interval of the job worker and the webhook delivery (ms).', parse: integer('JOB_POLL_MS', 200, 5, 60_000) },
  jobLeaseMs: {
    env: 'JOB_LEASE_MS',
    description: 'Lease of a claimed job or webhook event (ms); must exceed the longest job or attempt (a webhook attempt times out after 10 s).',
    parse: integer('JOB_LEASE_MS', 60_000, 15_000, 3_600_000),
  },
  jobConcurrency: {
    env: 'JOB_CONCURRENCY',
    description:
      'Background jobs running at once, and as many webhook attempts (50 to 5000): more costs a little less CPU per message but makes the event loop run later under load (the default kept the pipeline closest behind a high send rate), fewer leaves more of the CPU to the API under a burst of requests.',
    parse: integer('JOB_CONCURRENCY', 100, 50, 5000),
  },
  apiKeyCacheMs: {
    env: 'API_KEY_CACHE_MS',
    description:
      'How long a checked API key stays known without another database read (ms, 0 to 60000; 0 reads on every request). A key revoked by this server stops working at once; one revoked from elsewhere (the CLI, another instance) within this time.',
    parse: integer('API_KEY_CACHE_MS', 1000, 0, 60_000),
  },
  addressVerificationDelay: {
    env: 'ADDRESS_VERIFICATION_DELAY',
    description: 'Time until a submitted address is verified or rejected: 500ms, 5s, 10m, 2h, 1d, or 1bd (business days). Default 1bd with NODE_ENV=production, else 5s.',
    parse: (raw, env) => verificationDelay(raw || (env.NODE_ENV === 'production' ? '1bd' : '5s')),
  },
  secretKey: {
    env: 'SECRET_KEY',
    description: 'Server secret for keyed hashes; generated and kept in the database when unset.',
    parse: (raw) => {
      if (!raw) return null;
      if (raw.length < 32) throw new ConfigError('SECRET_KEY must be at least 32 characters');
      return raw;
    },
  },
  carrier: { env: 'CARRIER', description: 'The network behind the API: sandbox (built-in simulation).', parse: oneOf('CARRIER', ['sandbox'] as const, 'sandbox') },
  sandboxSentDelayMs: {
    env: 'SANDBOX_SENT_DELAY_MS',
    description: 'Sandbox: delay from sending to sent (ms).',
    parse: integer('SANDBOX_SENT_DELAY_MS', 100, 0, 600_000),
  },
  sandboxDeliveryDelayMs: {
    env: 'SANDBOX_DELIVERY_DELAY_MS',
    description: 'Sandbox: delay from sent to delivered or undelivered (ms).',
    parse: integer('SANDBOX_DELIVERY_DELAY_MS', 200, 0, 600_000),
  },
  sandboxSlowDeliveryMs: {
    env: 'SANDBOX_SLOW_DELIVERY_MS',
    description: 'Sandbox: delay from sent to delivered for the slow magic number +15005550004 (ms).',
    parse: integer('SANDBOX_SLOW_DELIVERY_MS', 5000, 0, 3_600_000),
  },
  sandboxReadDelayMs: {
    env: 'SANDBOX_READ_DELAY_MS',
    description: 'Sandbox: delay from delivered to read for RCS (ms).',
    parse: integer('SANDBOX_READ_DELAY_MS', 500, 0, 600_000),
  },
  sandboxMessagesPerSecond: {
    env: 'SANDBOX_MESSAGES_PER_SECOND',
    description: 'Sandbox: messages per second one sending number may hand to the network (like a long code).',
    parse: integer('SANDBOX_MESSAGES_PER_SECOND', 10, 1, 1_000_000),
  },
  webhookTimeoutMs: { env: 'WEBHOOK_TIMEOUT_MS', description: 'Webhook attempt timeout (ms).', parse: integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000) },
  webhookRetryBaseMs: {
    env: 'WEBHOOK_RETRY_BASE_MS',
    description: 'Webhook first retry delay (ms); doubles per attempt, with jitter.',
    parse: integer('WEBHOOK_RETRY_BASE_MS', 5_000, 1, 3_600_000),
  },
  webhookRetryMaxMs: {
    env: 'WEBHOOK_RETRY_MAX_MS',
    description: 'Webhook longest delay between attempts (ms).',
    parse: integer('WEBHOOK_RETRY_MAX_MS', 3_600_000, 1, 86_400_000),
  },
  webhookRetentionDays: {
    env: 'WEBHOOK_RETENTION_DAYS',
    description: 'Days a webhook event that was delivered or given up is kept, with its attempts (1 to 3650).',
    parse: integer('WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
  },
  webhookMaxAttempts: {
    env: 'WEBHOOK_MAX_ATTEMPTS',
    description: 'Webhook attempts before an event is given up.',
    parse: integer('WEBHOOK_MAX_ATTEMPTS', 15, 1, 100),
  },
  webhookAllowPrivate: {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    description: 'true/false: allow webhook URLs resolving to private or loopback addresses; defaults to true with the sandbox carrier.',
    parse: bool('WEBHOOK_ALLOW_PRIVATE', (all) => (all.CARRIER ?? 'sandbox') === 'sandbox' || all.CARRIER === ''),
  },
  verifyMaxSendsPerHour: {
    env: 'VERIFY_MAX_SENDS_PER_HOUR',
    description: 'Verification codes one account may send per hour (first sends and re-sends); beyond it 429 rate_limited.',
    parse: integer('VERIFY_MAX_SENDS_PER_HOUR', 1000, 1, 10_000_000),
  },
};

function bool(env: string, fallback: (all: NodeJS.ProcessEnv) => boolean) {
  return (raw: string | undefined, all: NodeJS.ProcessEnv) => {
    if (raw === undefined || raw === '') return fallback(all);
    if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${env} must be true or false, got "${raw}"`);
    return raw === 'true';
  };
}

export type VerificationDelay = { ms: number } | { businessDays: number };

const DELAY_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function verificationDelay(raw: string): VerificationDelay {
  const m = /^(\d{1,7})(ms|s|m|h|d|bd)$/.exec(raw.trim());
  if (!m) throw new ConfigError(`ADDRESS_VERIFICATION_DELAY must be a number with a unit (ms, s, m, h, d, or bd for business days), e.g. 5s or 1bd; got "${raw}"`);
  const n = Number(m[1]);
  return m[2] === 'bd' ? { businessDays: n } : { ms: n * DELAY_UNITS[m[2]] };
}

/** Reads and checks every setting; throws one ConfigError listing every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const out: Partial<Record<keyof Config, unknown>> = {};
  for (const key of Object.keys(SETTINGS) as (keyof Config)[]) {
    const setting = SETTINGS[key] as Setting<typeof key>;
    try {
      out[key] = setting.parse(env[setting.env], env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return { ...(out as Config), ...overrides };
}
