// The per-account request rate on /v1 (mounted right after the API key check): RATE_LIMIT_PER_SECOND requests per
// 1-second window, then a burst allowance, then 429 rate_limited. Counted in Redis when REDIS_URL is set, else in the
// database on PostgreSQL (either way every instance draws on one budget), else in memory (SQLite: one process).
import type { NextFunction, Request, Response } from 'express';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { CompiledQuery } from 'kysely';
import type { Logger } from 'pino';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterOptions,
} from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import { errors } from '../errors.js';
import type { Counters } from '../system/metrics.js';

/**
 * The window of the burst allowance (s): RATE_LIMIT_BURST − RATE_LIMIT_PER_SECOND extra requests per window. A long
 * window keeps the sustained rate near RATE_LIMIT_PER_SECOND (a tenth of the allowance more per second).
 */
const BURST_WINDOW_S = 10;
/** The table of migration 011_rate_limits: the counters of both limiters, one row per account and limiter. */
const TABLE = 'rate_limits';
/** The longest a start waits for Redis to answer its first connection attempt before serving without it. */
const REDIS_FIRST_CONNECT_MS = 5000;
/** How long a request waits for Redis to count it before passing uncounted (a stalled or half-open Redis). */
const REDIS_COMMAND_TIMEOUT_MS = 250;
/** Redis keys are `telephony:rate:<account sid>` and `telephony:burst:<account sid>`. */
const REDIS_PREFIX = 'telephony';

export interface RequestRateLimit {
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  /**
   * Settles once the counters' store has answered its first connection attempt (at once without Redis): awaited
   * before the server listens, so the first requests are counted rather than let through as if the store failed.
   */
  ready(): Promise<void>;
  /** Closes the Redis connection, when there is one. */
  close(): Promise<void>;
}

/** ioredis, loaded only when REDIS_URL is set: loading it costs a fifth of a start's CPU time. */
const redisClient = () => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

/** The limit, or null when it is off (either setting 0). */
export function requestRateLimit(
  config: Config,
  store: Store,
  logger: Logger,
  counters?: Pick<Counters, 'rateLimitRefused'>,
): RequestRateLimit | null {
  const { rateLimitPerSecond: perSecond, rateLimitBurst: burst } = config;
  if (perSecond === 0 || burst === 0) return null;
  // No offline queue: while Redis is away, requests pass (see below) instead of waiting for it.
  // A command that Redis does not answer within REDIS_COMMAND_TIMEOUT_MS fails, and the request passes.
  const redis = config.redisUrl
    ? new (redisClient())(config.redisUrl, {
        enableOfflineQueue: false,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        maxRetriesPerRequest: 1,
      })
    : null;
  // ioredis reconnects on its own; the middleware logs when counting fails.
  redis?.on('error', (err: Error) => logger.debug({ err }, 'rate limit: Redis connection error'));
  const counter = (options: IRateLimiterOptions) => counterIn(store, redis, options);
  const perWindow = counter({ keyPrefix: 'rate', points: perSecond, duration: 1 });
  const limiter =
    burst > perSecond
      ? new BurstyRateLimiter(
          perWindow,
          counter({ keyPrefix: 'burst', points: burst - perSecond, duration: BURST_WINDOW_S }),
        )
      : perWindow;
  // Logged once when the counters' store starts failing and once when it answers again, not for every request.
  let failing = false;
  return {
    middleware: (req, _res, next) => {
      const accountSid = req.account?.sid;
      if (!accountSid) return next();
      limiter.consume(accountSid).then(
        () => {
          if (failing) logger.info('rate limit: its store answers again');
          failing = false;
          next();
        },
        (refused: unknown) => {
          if (!(refused instanceof RateLimiterRes)) {
            // The counters' store failed: let the request through (the database answers for itself next) rather
            // than refuse every account.
            if (!failing) logger.warn({ err: refused }, 'rate limit not checked while its store fails');
            failing = true;
            return next();
          }
          counters?.rateLimitRefused();
          const resetSeconds = Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
          const headers = {
            'RateLimit-Limit': String(perSecond),
            'RateLimit-Remaining': '0',
            'RateLimit-Reset': String(resetSeconds),
          };
          next(errors.rateLimited(resetSeconds, headers));
        },
      );
    },
    ready: () => (redis ? firstConnection(redis, logger) : Promise.resolve()),
    async close() {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Resolves once Redis is ready, its first attempt failed (requests then pass, as in any outage), or a while passed. */
function firstConnection(redis: Redis, logger: Logger): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const settle = (err?: Error) => {
      clearTimeout(timer);
      redis.off('ready', settle);
      redis.off('error', settle);
      if (err || redis.status !== 'ready')
        logger.warn({ err }, 'rate limit: Redis is not answering; serving without it');
      resolve();
    };
    const timer = setTimeout(settle, REDIS_FIRST_CONNECT_MS);
    redis.once('ready', settle);
    redis.once('error', settle);
  });
}

function counterIn(store: Store, redis: Redis | null, options: IRateLimiterOptions) {
  // Once a window's points are spent, this instance refuses the key from memory until the window ends, rather than
  // asking the shared store again for every refused request.
  const shared = { ...options, inMemoryBlockOnConsumed: options.points };
  if (redis)
    return new RateLimiterRedis({ ...shared, keyPrefix: `${REDIS_PREFIX}:${options.keyPrefix}`, storeClient: redis });
  if (store.dialect === 'sqlite') return new RateLimiterMemory(options);
  // The limiter speaks to a pg-like client ({ text, values } → { rows, rowCount }); Kysely runs its queries on the
  // store's pool, in the store's schema. The table is made by migration 011_rate_limits.
  const client = {
    query: async (q: { text: string; values?: unknown[] }) => {
      const { rows } = await store.db.executeQuery(CompiledQuery.raw(q.text, q.values ?? []));
      return { rows, rowCount: rows.length };
    },
  };
  return new RateLimiterPostgres({
    ...shared,
    storeClient: client,
    storeType: 'pool',
    tableName: TABLE,
    tableCreated: true,
    // Rows are one per account and limiter, updated in place: nothing to sweep, and no timer to outlive close().
    clearExpiredByTimeout: false,
  });
}
