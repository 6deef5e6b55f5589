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
  /** Server secret used to key hashes of short secrets (OTP codes). */
  secretKey: string | null;
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
  jobPollMs: { env: 'JOB_POLL_MS', description: 'Idle poll interval of the job worker (ms).', parse: integer('JOB_POLL_MS', 200, 5, 60_000) },
  secretKey: {
    env: 'SECRET_KEY',
    description: 'Server secret for keyed hashes; generated and kept in the database when unset.',
    parse: (raw) => {
      if (!raw) return null;
      if (raw.length < 32) throw new ConfigError('SECRET_KEY must be at least 32 characters');
      return raw;
    },
  },
};

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
